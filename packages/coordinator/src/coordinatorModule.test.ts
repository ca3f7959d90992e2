import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Container } from 'inversify';
import { coreModule, silentLogger, TOKENS, type WatchCoordinator, type WatchCoordinatorFactory } from '@protean/core';
import { EnqueueRecorder, FakeWatchManager } from '@protean/core/testing';
import { coordinatorModule } from './coordinatorModule.js';
import { APP1, app1, configmaps, webapps } from './fixtures.testkit.js';
import { IndexedWatchCoordinator } from './IndexedWatchCoordinator.js';

describe('coordinatorModule', () => {
  it('binds a watch coordinator factory that builds a working IndexedWatchCoordinator', async () => {
    const container = new Container();
    container.load(coreModule({}, silentLogger()), coordinatorModule());
    const factory = container.get(TOKENS.watchCoordinatorFactory);
    const watchManager = new FakeWatchManager();
    const enqueued = new EnqueueRecorder();

    const watchCoordinator = factory({ watchManager: watchManager, enqueue: enqueued.enqueue, logger: container.get(TOKENS.logger) });
    expect(watchCoordinator).toBeInstanceOf(IndexedWatchCoordinator);
    await watchCoordinator.forInstance(webapps, app1).watch({ nodeId: 'c', gvr: configmaps, name: 'c', namespace: 'default' });
    watchCoordinator.routeEvent({ type: 'add', gvr: configmaps, namespace: 'default', name: 'c', labels: {} });
    expect(enqueued.take()).toEqual([APP1]);
    expect(watchManager.calls).toEqual([{ op: 'ensure', gvr: configmaps, ownerId: 'coordinator' }]);
  });

  it('passes its options to every coordinator it builds', async () => {
    const container = new Container();
    container.load(coreModule({}, silentLogger()), coordinatorModule({ ownerId: 'children' }));
    const watchManager = new FakeWatchManager();
    const watchCoordinator = container.get(TOKENS.watchCoordinatorFactory)({
      watchManager: watchManager,
      enqueue: () => undefined,
      logger: silentLogger(),
    });
    await watchCoordinator.forInstance(webapps, app1).watch({ nodeId: 'c', gvr: configmaps, name: 'c', namespace: 'default' });
    expect(watchManager.isWatching(configmaps, 'children')).toBe(true);
  });

  it('lets another watch coordinator replace the coordinator by rebinding the token', () => {
    const container = new Container();
    container.load(coreModule({}, silentLogger()), coordinatorModule());
    const custom = { routeEvent: () => undefined } as unknown as WatchCoordinator;
    const replacement: WatchCoordinatorFactory = () => custom;
    container.rebind(TOKENS.watchCoordinatorFactory).toConstantValue(replacement);

    const watchCoordinator = container.get(TOKENS.watchCoordinatorFactory)({
      watchManager: new FakeWatchManager(),
      enqueue: () => undefined,
      logger: silentLogger(),
    });
    expect(watchCoordinator).toBe(custom);
  });
});
