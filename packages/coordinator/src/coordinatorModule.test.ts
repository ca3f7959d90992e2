import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Container } from 'inversify';
import { coreModule, silentLogger, TOKENS, type EventRouter, type EventRouterFactory } from '@protean/core';
import { coordinatorModule } from './coordinatorModule.js';
import { FakeWatchRegistry } from './test-helpers/FakeWatchRegistry.js';
import { APP1, app1, configmaps, webapps } from './test-helpers/fixtures.js';
import { RecordingEnqueue } from './test-helpers/RecordingEnqueue.js';
import { WatchCoordinator } from './WatchCoordinator.js';

describe('coordinatorModule', () => {
  it('binds an event router factory that builds a working WatchCoordinator', async () => {
    const container = new Container();
    container.load(coreModule({}, silentLogger()), coordinatorModule());
    const factory = container.get(TOKENS.eventRouterFactory);
    const registry = new FakeWatchRegistry();
    const enqueued = new RecordingEnqueue();

    const router = factory({ watches: registry, enqueue: enqueued.enqueue, logger: container.get(TOKENS.logger) });
    expect(router).toBeInstanceOf(WatchCoordinator);
    await router.forInstance(webapps, app1).watch({ nodeId: 'c', gvr: configmaps, name: 'c', namespace: 'default' });
    router.routeEvent({ type: 'add', gvr: configmaps, namespace: 'default', name: 'c', labels: {} });
    expect(enqueued.take()).toEqual([APP1]);
    expect(registry.calls).toEqual([{ op: 'ensure', gvr: '/v1/configmaps', ownerId: 'coordinator' }]);
  });

  it('passes its options to every coordinator it builds', async () => {
    const container = new Container();
    container.load(coreModule({}, silentLogger()), coordinatorModule({ ownerId: 'children' }));
    const registry = new FakeWatchRegistry();
    const router = container.get(TOKENS.eventRouterFactory)({ watches: registry, enqueue: () => undefined, logger: silentLogger() });
    await router.forInstance(webapps, app1).watch({ nodeId: 'c', gvr: configmaps, name: 'c', namespace: 'default' });
    expect(registry.isWatching(configmaps, 'children')).toBe(true);
  });

  it('lets another router replace the coordinator by rebinding the token', () => {
    const container = new Container();
    container.load(coreModule({}, silentLogger()), coordinatorModule());
    const custom = { routeEvent: () => undefined } as unknown as EventRouter;
    const replacement: EventRouterFactory = () => custom;
    container.rebind(TOKENS.eventRouterFactory).toConstantValue(replacement);

    const router = container.get(TOKENS.eventRouterFactory)({
      watches: new FakeWatchRegistry(),
      enqueue: () => undefined,
      logger: silentLogger(),
    });
    expect(router).toBe(custom);
  });
});
