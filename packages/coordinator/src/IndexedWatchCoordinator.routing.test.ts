import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { EnqueueRecorder, FakeWatchManager, LogRecorder } from '@protean/core/testing';
import { Everything, Nothing, parseSelector } from './deps.testkit.js';
import { APP1, APP2, app1, app2, configmaps, databases, deployments, services, webapps } from './fixtures.testkit.js';
import { event, newHarness } from './harness.testkit.js';
import { IndexedWatchCoordinator } from './IndexedWatchCoordinator.js';

describe('IndexedWatchCoordinator routing', () => {
  it('enqueues the instance for events on a watched object and not for other names', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'deployment', gvr: deployments, name: 'web', namespace: 'default' });
    w.done(true);

    coordinator.routeEvent(event(deployments, 'default', 'web'));
    expect(enqueued.take()).toEqual([APP1]);

    coordinator.routeEvent(event(deployments, 'default', 'other'));
    coordinator.routeEvent(event(deployments, 'prod', 'web'));
    coordinator.routeEvent(event(services, 'default', 'web'));
    expect(enqueued.take()).toEqual([]);
  });

  it('routes events for a request from the moment watch() is called, before the informer synced', () => {
    const { coordinator, watchManager, enqueued } = newHarness('manual');
    const w = coordinator.forInstance(webapps, app1);
    void w.watch({ nodeId: 'deployment', gvr: deployments, name: 'web', namespace: 'default' });
    expect(watchManager.pendingSyncs(deployments)).toBe(1);

    coordinator.routeEvent(event(deployments, 'default', 'web'));
    expect(enqueued.take()).toEqual([APP1]);
    watchManager.resolveSync(deployments);
  });

  it('treats an omitted namespace of a scalar request as cluster-scoped', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'ns', gvr: { group: '', version: 'v1', resource: 'namespaces' }, name: 'team-a' });
    coordinator.routeEvent(event({ group: '', version: 'v1', resource: 'namespaces' }, '', 'team-a'));
    expect(enqueued.take()).toEqual([APP1]);
  });

  it('matches a collection watch by labels within its namespace only', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'configs', gvr: configmaps, namespace: 'default', selector: parseSelector('app=my-app') });
    w.done(true);

    coordinator.routeEvent(event(configmaps, 'default', 'c1', { app: 'my-app', extra: 'x' }));
    expect(enqueued.take()).toEqual([APP1]);
    coordinator.routeEvent(event(configmaps, 'default', 'c2', { app: 'other' }));
    coordinator.routeEvent(event(configmaps, 'default', 'c3', {}));
    expect(enqueued.take()).toEqual([]);
    coordinator.routeEvent(event(configmaps, 'other-ns', 'c4', { app: 'my-app' }));
    coordinator.routeEvent(event(configmaps, '', 'c5', { app: 'my-app' }));
    expect(enqueued.take()).toEqual([]);
  });

  it('matches a collection watch without namespace in every namespace, cluster scope included', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'configs', gvr: configmaps, selector: parseSelector('tier in (web,api)') });
    await w.watch({ nodeId: 'all', gvr: services, namespace: '', selector: Everything });

    coordinator.routeEvent(event(configmaps, 'a', 'c1', { tier: 'api' }));
    coordinator.routeEvent(event(configmaps, 'b', 'c2', { tier: 'web' }));
    coordinator.routeEvent(event(configmaps, '', 'c3', { tier: 'web' }));
    coordinator.routeEvent(event(services, 'b', 's1'));
    expect(enqueued.take()).toEqual([APP1, APP1, APP1, APP1]);
    coordinator.routeEvent(event(configmaps, 'a', 'c4', { tier: 'db' }));
    expect(enqueued.take()).toEqual([]);
  });

  it('enqueues when an object leaves a selector (old labels match, new labels do not)', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'pods', gvr: configmaps, namespace: 'default', selector: parseSelector('app=web') });
    await w.watch({ nodeId: 'unlabelled', gvr: services, namespace: 'default', selector: parseSelector('!owner') });

    coordinator.routeEvent(event(configmaps, 'default', 'c1', { app: 'db' }, { app: 'web' }));
    expect(enqueued.take()).toEqual([APP1]);
    coordinator.routeEvent(event(configmaps, 'default', 'c1', { app: 'db' }, { app: 'cache' }));
    expect(enqueued.take()).toEqual([]);
    // Empty old labels still count (kro skips them): the object matched `!owner` before.
    coordinator.routeEvent(event(services, 'default', 's1', { owner: 'me' }, {}));
    expect(enqueued.take()).toEqual([APP1]);
  });

  it('accepts a Nothing selector, which never routes', async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'none', gvr: configmaps, selector: Nothing });
    expect(watchManager.isWatching(configmaps)).toBe(true);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 1 });
    coordinator.routeEvent(event(configmaps, 'default', 'c', {}, {}));
    expect(enqueued.take()).toEqual([]);
  });

  it('enqueues every instance watching a shared object', async () => {
    const { coordinator, enqueued } = newHarness();
    const db1 = { namespace: 'default', name: 'db1' };
    for (const [parent, inst] of [
      [webapps, app1],
      [webapps, app2],
      [databases, db1],
    ] as const) {
      const w = coordinator.forInstance(parent, inst);
      await w.watch({ nodeId: 'config', gvr: configmaps, name: 'shared', namespace: 'default' });
      w.done(true);
    }
    coordinator.routeEvent(event(configmaps, 'default', 'shared'));
    expect(enqueued.take()).toEqual(['demo.protean.dev/v1/databases default/db1', APP1, APP2]);
  });

  it('enqueues each instance once per event across scalar, collection and repeated requests', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'one', gvr: configmaps, name: 'c1', namespace: 'default' });
    await w.watch({ nodeId: 'two', gvr: configmaps, name: 'c1', namespace: 'default' });
    await w.watch({ nodeId: 'by-app', gvr: configmaps, namespace: 'default', selector: parseSelector('app=web') });
    await w.watch({ nodeId: 'by-tier', gvr: configmaps, selector: parseSelector('tier') });
    await w.watch({ nodeId: 'scan', gvr: configmaps, selector: parseSelector('app!=db') });
    w.done(true);
    const w2 = coordinator.forInstance(webapps, app2);
    await w2.watch({ nodeId: 'by-app', gvr: configmaps, selector: parseSelector('app=web') });
    w2.done(true);

    coordinator.routeEvent(event(configmaps, 'default', 'c1', { app: 'web', tier: 'x' }, { app: 'web', tier: 'y' }));
    expect(enqueued.take()).toEqual([APP1, APP2]);
    coordinator.routeEvent(event(configmaps, 'default', 'c1', { app: 'web', tier: 'x' }));
    expect(enqueued.take()).toEqual([APP1, APP2]);
  });

  it('routes scalar and collection requests on one GVR independently', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'main', gvr: configmaps, name: 'main', namespace: 'default' });
    w.done(true);
    const w2 = coordinator.forInstance(webapps, app2);
    await w2.watch({ nodeId: 'extras', gvr: configmaps, namespace: 'default', selector: parseSelector('extra=true') });
    w2.done(true);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 1 });

    coordinator.routeEvent(event(configmaps, 'default', 'main'));
    expect(enqueued.take()).toEqual([APP1]);
    coordinator.routeEvent(event(configmaps, 'default', 'x', { extra: 'true' }));
    expect(enqueued.take()).toEqual([APP2]);
    coordinator.routeEvent(event(configmaps, 'default', 'main', { extra: 'true' }));
    expect(enqueued.take()).toEqual([APP1, APP2]);
  });

  it('ignores events of GVRs nobody watches', () => {
    const { coordinator, enqueued } = newHarness();
    coordinator.routeEvent(event(deployments, 'default', 'web', { app: 'web' }));
    expect(enqueued.take()).toEqual([]);
  });

  it('keeps enqueuing the other instances when one enqueue call throws', async () => {
    const watchManager = new FakeWatchManager();
    const recorded = new EnqueueRecorder();
    const log = new LogRecorder('error');
    const { logger, records: logs } = log;
    const coordinator = new IndexedWatchCoordinator(
      watchManager,
      (parent, inst) => {
        if (inst.name === 'app1') throw new Error('queue is gone');
        recorded.enqueue(parent, inst);
      },
      logger,
    );
    for (const inst of [app1, app2]) {
      await coordinator.forInstance(webapps, inst).watch({ nodeId: 'c', gvr: configmaps, name: 'shared', namespace: 'default' });
    }
    coordinator.routeEvent(event(configmaps, 'default', 'shared'));
    expect(recorded.take()).toEqual([APP2]);
    expect(logs).toHaveLength(1);
    expect(log.bindingsOf(logs[0]!)).toMatchObject({ component: 'watch-coordinator' });
    expect(logs[0]!.msg).toBe('enqueue failed');
    // As pino serializes an error: { type, message, stack }.
    expect((logs[0]!['err'] as { message: string }).message).toBe('queue is gone');
  });

  it('handles an enqueue callback that routes another event re-entrantly', async () => {
    const watchManager = new FakeWatchManager();
    const recorded = new EnqueueRecorder();
    const coordinator: IndexedWatchCoordinator = new IndexedWatchCoordinator(
      watchManager,
      (parent, inst) => {
        recorded.enqueue(parent, inst);
        if (inst.name === 'app1') coordinator.routeEvent(event(services, 'default', 'svc'));
      },
      silentLogger(),
    );
    await coordinator.forInstance(webapps, app1).watch({ nodeId: 'c', gvr: configmaps, name: 'shared', namespace: 'default' });
    await coordinator.forInstance(webapps, app2).watch({ nodeId: 'c', gvr: configmaps, name: 'shared', namespace: 'default' });
    await coordinator.forInstance(webapps, app2).watch({ nodeId: 's', gvr: services, name: 'svc', namespace: 'default' });

    coordinator.routeEvent(event(configmaps, 'default', 'shared'));
    // app1 and app2 for the outer event, app2 again for the inner one.
    expect(recorded.take()).toEqual([APP1, APP2, APP2]);
    coordinator.routeEvent(event(configmaps, 'default', 'shared'));
    expect(recorded.take()).toEqual([APP1, APP2, APP2]);
  });

  it('logs routing at debug level through the watch-coordinator child logger', async () => {
    const log = new LogRecorder('debug');
    const { logger, records: logs } = log;
    const coordinator = new IndexedWatchCoordinator(new FakeWatchManager(), () => undefined, logger);
    await coordinator.forInstance(webapps, app1).watch({ nodeId: 'c', gvr: configmaps, name: 'c', namespace: 'default' });
    coordinator.routeEvent(event(configmaps, 'default', 'c'));
    const routed = logs.find((l) => l.msg === 'routed event');
    expect(log.bindingsOf(routed!)).toEqual({ component: 'watch-coordinator' });
    expect(routed).toMatchObject({ gvr: '/v1/configmaps', namespace: 'default', name: 'c', instances: 1 });
    expect(logs.map((l) => l.msg)).toContain('watch requested');
  });

  it('logs nothing below info when debug is disabled', async () => {
    const { logger, records: logs } = new LogRecorder('info');
    const coordinator = new IndexedWatchCoordinator(new FakeWatchManager(), () => undefined, logger);
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'c', gvr: configmaps, name: 'c', namespace: 'default' });
    coordinator.routeEvent(event(configmaps, 'default', 'c'));
    w.done(true);
    coordinator.removeInstance(webapps, app1);
    expect(logs).toEqual([]);
  });
});
