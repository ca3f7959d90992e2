import { describe, expect, it } from '@jest/globals';
import { APP1, app1, configmaps, deployments, services, webapps } from './fixtures.testkit.js';
import { event, newHarness } from './harness.testkit.js';

const d1 = { nodeId: 'deployment', gvr: deployments, name: 'd1', namespace: 'default' } as const;
const s1 = { nodeId: 'service', gvr: services, name: 's1', namespace: 'default' } as const;

/** `beginPass(...).end(commit)`: the controller's settling of one handler call. */
describe('IndexedWatchCoordinator passes', () => {
  it('commits exactly what the pass declared when it ends with commit', async () => {
    const { coordinator, enqueued } = newHarness();
    const p1 = coordinator.beginPass(webapps, app1);
    await p1.watch(d1);
    await p1.watch(s1);
    p1.end(true);
    const p2 = coordinator.beginPass(webapps, app1);
    await p2.watch(d1);
    p2.end(true);
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    coordinator.routeEvent(event(services, 'default', 's1'));
    expect(enqueued.take()).toEqual([APP1]);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it('drops every committed watch, and releases the GVRs, when a pass that declared nothing ends with commit', async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    const p1 = coordinator.beginPass(webapps, app1);
    await p1.watch(d1);
    p1.end(true);
    expect(watchManager.isWatching(deployments)).toBe(true);

    coordinator.beginPass(webapps, app1).end(true);
    expect(coordinator.instanceWatchCount()).toBe(0);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    expect(watchManager.isWatching(deployments)).toBe(false);
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([]);
  });

  it('keeps the committed set, and discards the pass, when it ends without commit', async () => {
    const { coordinator, watchManager } = newHarness();
    const p1 = coordinator.beginPass(webapps, app1);
    await p1.watch(d1);
    p1.end(true);
    const p2 = coordinator.beginPass(webapps, app1);
    await p2.watch({ nodeId: 'config', gvr: configmaps, name: 'c', namespace: 'default' });
    p2.end(false);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
    expect(watchManager.isWatching(deployments)).toBe(true);
    expect(watchManager.isWatching(configmaps)).toBe(false);

    coordinator.beginPass(webapps, app1).end(false);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it('leaves a cycle the handler settled itself, through the pass or another watcher of the instance', async () => {
    const { coordinator } = newHarness();
    const p1 = coordinator.beginPass(webapps, app1);
    await p1.watch(d1);
    p1.done(true);
    p1.end(true); // nothing declared after the handler's own done
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });

    const p2 = coordinator.beginPass(webapps, app1);
    const byHand = coordinator.forInstance(webapps, app1);
    await byHand.watch(s1);
    byHand.done(true);
    p2.end(true);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
    coordinator.routeEvent(event(services, 'default', 's1'));
    expect(coordinator.instanceWatchCount()).toBe(1);
  });

  it('settles what the handler declared after its own done', async () => {
    const { coordinator } = newHarness();
    const p = coordinator.beginPass(webapps, app1);
    await p.watch(d1);
    p.done(true);
    await p.watch(s1);
    p.end(true);
    // The second cycle (s1 only) was committed by end.
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it('does not count a settle from an earlier pass as this pass settling itself', async () => {
    const { coordinator } = newHarness();
    const byHand = coordinator.forInstance(webapps, app1);
    await byHand.watch(d1);
    byHand.done(true);
    coordinator.beginPass(webapps, app1).end(true);
    expect(coordinator.instanceWatchCount()).toBe(0);
  });
});
