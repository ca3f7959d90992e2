import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import {
  coreModule,
  silentLogger,
  TOKENS,
  type GroupVersionResource,
  type ObjectIdentifiers,
  type WorkQueueOptions,
  workItemKey,
} from '@protean/core';
import { FakeClock, QueueMetricsRecorder } from '@protean/core/testing';
import { Container } from 'inversify';
import { fairQueueModule } from './fairQueueModule.js';
import { FairRateLimitingQueue } from './FairRateLimitingQueue.js';
import { queueModule } from './queueModule.js';
import { takeNames } from './take.testkit.js';

const WEBAPPS: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'webapps' };
const DATABASES: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'databases' };
// What the DynamicController asks of the factory.
const controllerOptions: WorkQueueOptions<ObjectIdentifiers> = { key: workItemKey, name: 'dynamic-controller-queue' };

function fairContainer(): Container {
  const c = new Container();
  c.load(coreModule({}, silentLogger()), queueModule(), fairQueueModule());
  return c;
}

describe('fairQueueModule', () => {
  it('rebinds the work queue factory loaded by queueModule, so the container builds fair queues', async () => {
    const q = fairContainer().get(TOKENS.workQueueFactory)(controllerOptions);
    expect(q).toBeInstanceOf(FairRateLimitingQueue);
    for (let i = 0; i < 5; i++) q.add({ gvr: WEBAPPS, namespace: 'ns', name: `web-${i}` });
    q.add({ gvr: DATABASES, namespace: 'ns', name: 'db-0' });
    // Grouped by parent GVR with no group configured anywhere.
    expect(await takeNames(q, 3)).toEqual(['web-0', 'db-0', 'web-1']);
  });

  it('binds the factory on its own when no queue module is loaded', () => {
    const c = new Container();
    c.load(coreModule({}, silentLogger()), fairQueueModule());
    expect(c.get(TOKENS.workQueueFactory)(controllerOptions)).toBeInstanceOf(FairRateLimitingQueue);
  });

  it('uses the container clock and metrics provider', () => {
    const provider = new QueueMetricsRecorder();
    const clock = new FakeClock();
    const c = fairContainer();
    c.rebind(TOKENS.clock).toConstantValue(clock);
    c.rebind(TOKENS.queueMetricsProvider).toConstantValue(provider);
    const q = c.get(TOKENS.workQueueFactory)(controllerOptions);
    const created = provider.queueNames();
    expect(created).toEqual(new Array(7).fill('dynamic-controller-queue'));
    q.addRateLimited({ gvr: WEBAPPS, namespace: 'ns', name: 'web-0' }); // default limiter: 5 ms
    clock.advance(4);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
  });

  it('groups by the group option when one is given', async () => {
    const c = new Container();
    c.load(coreModule({}, silentLogger()), queueModule(), fairQueueModule({ group: (item) => (item as ObjectIdentifiers).namespace }));
    const q = c.get(TOKENS.workQueueFactory)(controllerOptions);
    q.add({ gvr: WEBAPPS, namespace: 'team-a', name: 'a-0' });
    q.add({ gvr: DATABASES, namespace: 'team-a', name: 'a-1' });
    q.add({ gvr: WEBAPPS, namespace: 'team-b', name: 'b-0' });
    expect(await takeNames(q, 3)).toEqual(['a-0', 'b-0', 'a-1']);
  });

  it('owns its binding: unloading the module removes the fair factory', () => {
    const module = fairQueueModule();
    const c = new Container();
    c.load(coreModule({}, silentLogger()), queueModule(), module);
    expect(c.isBound(TOKENS.workQueueFactory)).toBe(true);
    c.unload(module);
    expect(c.isBound(TOKENS.workQueueFactory)).toBe(false);
  });

  it('in a child container, shadows the parent factory and leaves the parent unchanged', () => {
    const parent = new Container();
    parent.load(coreModule({}, silentLogger()), queueModule());
    const child = new Container({ parent });
    child.load(fairQueueModule());
    expect(child.get(TOKENS.workQueueFactory)(controllerOptions)).toBeInstanceOf(FairRateLimitingQueue);
    expect(parent.get(TOKENS.workQueueFactory)(controllerOptions)).not.toBeInstanceOf(FairRateLimitingQueue);
  });

  it('must be loaded after queueModule: loaded before it, the token becomes ambiguous', () => {
    const c = new Container();
    c.load(coreModule({}, silentLogger()), fairQueueModule(), queueModule());
    expect(() => c.get(TOKENS.workQueueFactory)).toThrow(/Ambiguous/i);
  });

  it('rejects bad options when the module is built', () => {
    expect(() => fairQueueModule({ unfinishedWorkUpdatePeriodMs: Number.NaN })).toThrow(
      'fairQueueModule: invalid unfinishedWorkUpdatePeriodMs=NaN',
    );
    expect(() => fairQueueModule({ group: {} as unknown as () => string })).toThrow(
      'fairQueueModule: options.group must be a function, got object',
    );
  });

  it('rejects an unfinished-work period of 2^31 ms when the module is built, naming it and the limit', () => {
    expect(() => fairQueueModule({ unfinishedWorkUpdatePeriodMs: 2 ** 31 })).toThrow(
      "fairQueueModule: invalid unfinishedWorkUpdatePeriodMs=2147483648: must be a number from 0 to 2147483647 (the longest delay Node's timers honour)",
    );
  });
});
