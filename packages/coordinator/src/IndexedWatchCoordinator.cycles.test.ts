import { describe, expect, it } from '@jest/globals';
import { InstanceRemovedError } from './InstanceRemovedError.js';
import { parseSelector, selectorFromLabelSelector } from './deps.testkit.js';
import { APP1, app1, configmaps, deployments, services, webapps } from './fixtures.testkit.js';
import { event, newHarness } from './harness.testkit.js';
import { WatchRequestError } from './WatchRequestError.js';

const d1 = { nodeId: 'deployment', gvr: deployments, name: 'd1', namespace: 'default' } as const;
const s1 = { nodeId: 'service', gvr: services, name: 's1', namespace: 'default' } as const;

describe('IndexedWatchCoordinator cycles', () => {
  it('drops requests of the previous cycle that were not re-requested on done(true)', async () => {
    const { coordinator, enqueued } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch(d1);
    await w1.watch(s1);
    w1.done(true);
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    coordinator.routeEvent(event(services, 'default', 's1'));
    expect(enqueued.take()).toEqual([APP1, APP1]);

    const w2 = coordinator.forInstance(webapps, app1);
    await w2.watch(d1);
    // Until done, the committed set still routes.
    coordinator.routeEvent(event(services, 'default', 's1'));
    expect(enqueued.take()).toEqual([APP1]);
    w2.done(true);

    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([APP1]);
    coordinator.routeEvent(event(services, 'default', 's1'));
    expect(enqueued.take()).toEqual([]);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it('keeps the committed set on done(false) when a node changed target, and discards the new target', async () => {
    const { coordinator, enqueued } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch(d1);
    w1.done(true);

    const w2 = coordinator.forInstance(webapps, app1);
    await w2.watch({ ...d1, name: 'd2' });
    // While the cycle runs, both the committed and the new target route.
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    coordinator.routeEvent(event(deployments, 'default', 'd2'));
    expect(enqueued.take()).toEqual([APP1, APP1]);
    w2.done(false);

    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([APP1]);
    coordinator.routeEvent(event(deployments, 'default', 'd2'));
    expect(enqueued.take()).toEqual([]);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it("keeps a re-requested committed watch on done(false) and drops the failed cycle's additions", async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch(d1);
    w1.done(true);

    const w2 = coordinator.forInstance(webapps, app1);
    await w2.watch(d1);
    await w2.watch(s1);
    w2.done(false);

    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([APP1]);
    coordinator.routeEvent(event(services, 'default', 's1'));
    expect(enqueued.take()).toEqual([]);
    expect(watchManager.isWatching(services)).toBe(false);
    expect(watchManager.isWatching(deployments)).toBe(true);
  });

  it('does not let a later successful cycle promote requests of a failed cycle it did not repeat', async () => {
    const { coordinator, enqueued } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch(d1);
    w1.done(true);

    const failed = coordinator.forInstance(webapps, app1);
    await failed.watch(s1);
    await failed.watch({ ...d1, name: 'd9' });
    failed.done(false);

    const ok = coordinator.forInstance(webapps, app1);
    await ok.watch({ nodeId: 'other', gvr: configmaps, name: 'c', namespace: 'default' });
    ok.done(true);

    for (const [gvr, name] of [
      [services, 's1'],
      [deployments, 'd9'],
      [deployments, 'd1'],
    ] as const) {
      coordinator.routeEvent(event(gvr, 'default', name));
    }
    expect(enqueued.take()).toEqual([]);
    coordinator.routeEvent(event(configmaps, 'default', 'c'));
    expect(enqueued.take()).toEqual([APP1]);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it('keeps a committed selector on done(false) after the cycle changed it', async () => {
    const { coordinator, enqueued } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch({ nodeId: 'cms', gvr: configmaps, namespace: 'default', selector: parseSelector('app=a') });
    w1.done(true);

    const w2 = coordinator.forInstance(webapps, app1);
    await w2.watch({ nodeId: 'cms', gvr: configmaps, namespace: 'default', selector: parseSelector('app=b') });
    await w2.watch({ nodeId: 'more', gvr: configmaps, selector: parseSelector('extra') });
    w2.done(false);

    coordinator.routeEvent(event(configmaps, 'default', 'x', { app: 'a' }));
    expect(enqueued.take()).toEqual([APP1]);
    coordinator.routeEvent(event(configmaps, 'default', 'x', { app: 'b', extra: '1' }));
    expect(enqueued.take()).toEqual([]);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 1 });

    // A later success that does not repeat the failed cycle's selectors keeps them out.
    const w3 = coordinator.forInstance(webapps, app1);
    await w3.watch({ nodeId: 'cms', gvr: configmaps, namespace: 'default', selector: parseSelector('app=a') });
    w3.done(true);
    coordinator.routeEvent(event(configmaps, 'default', 'x', { app: 'b', extra: '1' }));
    expect(enqueued.take()).toEqual([]);
  });

  it('replaces a collection watch when the same node changes its selector', async () => {
    const { coordinator, enqueued } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch({ nodeId: 'cms', gvr: configmaps, namespace: 'default', selector: parseSelector('app=a') });
    w1.done(true);
    const w2 = coordinator.forInstance(webapps, app1);
    await w2.watch({ nodeId: 'cms', gvr: configmaps, namespace: 'default', selector: parseSelector('app=b') });
    w2.done(true);

    coordinator.routeEvent(event(configmaps, 'default', 'x', { app: 'a' }));
    expect(enqueued.take()).toEqual([]);
    coordinator.routeEvent(event(configmaps, 'default', 'x', { app: 'b' }));
    expect(enqueued.take()).toEqual([APP1]);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 1 });
  });

  it('replaces the earlier target when a node is re-targeted within one cycle', async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'n', gvr: configmaps, name: 'a', namespace: 'default' });
    await w.watch({ nodeId: 'n', gvr: configmaps, name: 'b', namespace: 'default' });
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
    // Re-targeting within a GVR never lets the informer go.
    expect(watchManager.count('release')).toBe(0);
    expect(watchManager.count('ensure', configmaps)).toBe(1);
    w.done(true);
    coordinator.routeEvent(event(configmaps, 'default', 'a'));
    expect(enqueued.take()).toEqual([]);
    coordinator.routeEvent(event(configmaps, 'default', 'b'));
    expect(enqueued.take()).toEqual([APP1]);
  });

  it('moves a reused node id to its new GVR and releases the old GVR', async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch({ nodeId: 'resource', gvr: deployments, name: 'x', namespace: 'default' });
    w1.done(true);
    const w2 = coordinator.forInstance(webapps, app1);
    await w2.watch({ nodeId: 'resource', gvr: services, name: 'x', namespace: 'default' });
    w2.done(true);

    coordinator.routeEvent(event(deployments, 'default', 'x'));
    expect(enqueued.take()).toEqual([]);
    coordinator.routeEvent(event(services, 'default', 'x'));
    expect(enqueued.take()).toEqual([APP1]);
    expect(watchManager.isWatching(deployments)).toBe(false);
    expect(watchManager.isWatching(services)).toBe(true);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it('treats identical requests as one, for equal selectors written differently too', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'cms', gvr: configmaps, namespace: 'default', selector: parseSelector('app=a,tier in (x,y)') });
    await w.watch({ nodeId: 'cms', gvr: configmaps, namespace: 'default', selector: parseSelector('tier in (y,x), app==a') });
    await w.watch({
      nodeId: 'cms',
      gvr: configmaps,
      namespace: 'default',
      selector: selectorFromLabelSelector({
        matchLabels: { app: 'a' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['x', 'y'] }],
      }),
    });
    await w.watch(d1);
    await w.watch(d1);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 1 });
    w.done(true);
    const again = coordinator.forInstance(webapps, app1);
    await again.watch({ nodeId: 'cms', gvr: configmaps, namespace: 'default', selector: parseSelector('app=a,tier in (x,y)') });
    again.done(true);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 1 });
    coordinator.routeEvent(event(configmaps, 'default', 'c', { app: 'a', tier: 'x' }));
    expect(enqueued.take()).toEqual([APP1]);
  });

  it('counts instances with at least one request', async () => {
    const { coordinator } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    expect(coordinator.instanceWatchCount()).toBe(0);
    await w.watch(d1);
    expect(coordinator.instanceWatchCount()).toBe(1);
    w.done(true);
    const w2 = coordinator.forInstance(webapps, { namespace: 'default', name: 'app2' });
    w2.done(true);
    expect(coordinator.instanceWatchCount()).toBe(1);
    const w3 = coordinator.forInstance(webapps, app1);
    w3.done(true);
    expect(coordinator.instanceWatchCount()).toBe(0);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
  });

  it('lets one watcher run several cycles', async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch(d1);
    w.done(true);
    w.done(true);
    expect(coordinator.instanceWatchCount()).toBe(0);
    await w.watch(s1);
    w.done(true);
    coordinator.routeEvent(event(services, 'default', 's1'));
    expect(enqueued.take()).toEqual([APP1]);
  });

  it('rejects watch() on a watcher obtained before its instance was removed; done() is then a no-op', async () => {
    const { coordinator, enqueued } = newHarness();
    const stale = coordinator.forInstance(webapps, app1);
    await stale.watch(d1);
    coordinator.removeInstance(webapps, app1);

    await expect(stale.watch(s1)).rejects.toThrow(InstanceRemovedError);
    await expect(stale.watch(s1)).rejects.toThrow(/instance demo\.protean\.dev\/v1\/webapps default\/app1 was removed.*"service"/);
    expect(coordinator.instanceWatchCount()).toBe(0);

    // A new watcher starts fresh; the stale one cannot commit into it.
    const fresh = coordinator.forInstance(webapps, app1);
    await fresh.watch(s1);
    stale.done(false);
    stale.done(true);
    coordinator.routeEvent(event(services, 'default', 's1'));
    expect(enqueued.take()).toEqual([APP1]);
  });

  it.each([
    [
      'neither name nor selector',
      { nodeId: 'n', gvr: deployments, namespace: 'default' },
      /node "n": neither a name.*apps\/v1\/deployments/,
    ],
    [
      'name and selector',
      { nodeId: 'n', gvr: deployments, name: 'x', selector: parseSelector('a=b') },
      /node "n": both a name \("x"\) and a selector \(a=b\)/,
    ],
    ['an empty nodeId', { nodeId: '', gvr: deployments, name: 'x' }, /node "<none>": nodeId must be a non-empty string/],
    [
      'a GVR without resource',
      { nodeId: 'n', gvr: { group: 'apps', version: 'v1', resource: '' }, name: 'x' },
      /node "n": invalid GroupVersionResource .*: resource "" must be/,
    ],
    ['a selector that is not a Selector', { nodeId: 'n', gvr: deployments, selector: 'app=x' }, /node "n": selector must be a Selector/],
  ])('rejects a request with %s, naming the instance and node', async (_what, req, message) => {
    const { coordinator, watchManager } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    const result = w.watch(req as never);
    await expect(result).rejects.toThrow(WatchRequestError);
    await expect(result).rejects.toThrow(message);
    await expect(result).rejects.toThrow(/instance demo\.protean\.dev\/v1\/webapps default\/app1/);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    expect(watchManager.calls).toEqual([]);
  });
});
