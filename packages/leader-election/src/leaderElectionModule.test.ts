import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { coreModule, DynamicController, silentLogger, TOKENS } from '@protean/core';
import { FakeInformerSource, FakeWatchCoordinator, FakeWatchManager, FakeWorkQueue, waitFor } from '@protean/core/testing';
import { Container } from 'inversify';
import { FakeLeaseClient } from './FakeLeaseClient.js';
import { LeaderElectionConfigError } from './LeaderElectionConfigError.js';
import { leaderElectionModule } from './leaderElectionModule.js';
import { LeaderElector } from './LeaderElector.js';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

/** A container with core's bindings, doubles for the other layers, and the leader election module. */
function container(client: FakeLeaseClient, identity: string): Container {
  const c = new Container();
  c.load(coreModule({ workers: 1 }, silentLogger()), leaderElectionModule({ namespace: 'ns', leaseName: 'ctl', client, identity }));
  c.bind(TOKENS.informerSource).toConstantValue(new FakeInformerSource());
  c.bind(TOKENS.workQueueFactory).toConstantValue(FakeWorkQueue.factory());
  c.bind(TOKENS.watchManagerFactory).toConstantValue((deps) => new FakeWatchManager({ onEvent: deps.onEvent }));
  c.bind(TOKENS.watchCoordinatorFactory).toConstantValue((deps) => new FakeWatchCoordinator(deps));
  return c;
}

describe('leaderElectionModule', () => {
  it('binds TOKENS.leadership to one LeaderElector that the container-built DynamicController follows', async () => {
    const client = new FakeLeaseClient();
    const c = container(client, 'replica-a');
    const elector = c.get(TOKENS.leadership);
    expect(elector).toBeInstanceOf(LeaderElector);
    expect(c.get(TOKENS.leadership)).toBe(elector);
    expect(elector.identity).toBe('replica-a');
    const controller = c.get(DynamicController);
    const stop = new AbortController();
    stops.push(stop);
    const running = controller.start(stop.signal);
    await waitFor(() => controller.isLeading(), { message: 'the controller to lead' });
    expect(client.read('ns', 'ctl')?.spec?.holderIdentity).toBe('replica-a');
    stop.abort();
    await running;
    expect(controller.isLeading()).toBe(false);
    // Released on the graceful stop.
    expect(client.read('ns', 'ctl')?.spec?.holderIdentity).toBeUndefined();
  });

  it('keeps a second replica on standby, started but not leading', async () => {
    const client = new FakeLeaseClient();
    const first = container(client, 'replica-a').get(DynamicController);
    const second = container(client, 'replica-b').get(DynamicController);
    const stop = new AbortController();
    stops.push(stop);
    const runs = [first.start(stop.signal), second.start(stop.signal)];
    await waitFor(() => first.isLeading());
    expect(second.isStarted()).toBe(true);
    expect(second.isLeading()).toBe(false);
    stop.abort();
    await Promise.all(runs);
  });

  it('validates its options when built', () => {
    expect(() => leaderElectionModule({ namespace: 'ns', leaseName: '', client: new FakeLeaseClient() })).toThrow(
      LeaderElectionConfigError,
    );
  });
});
