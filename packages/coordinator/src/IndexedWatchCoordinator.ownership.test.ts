import { describe, expect, it } from '@jest/globals';
import { gvrKey, silentLogger } from '@protean/core';
import { EnqueueRecorder, FakeWatchManager, flushMicrotasks, track } from '@protean/core/testing';
import { parseSelector } from './deps.testkit.js';
import { APP1, APP2, app1, app2, configmaps, databases, deployments, services, webapps } from './fixtures.testkit.js';
import { event, newHarness } from './harness.testkit.js';
import { IndexedWatchCoordinator } from './IndexedWatchCoordinator.js';
import { WatchUnavailableError } from './WatchUnavailableError.js';

const d1 = { nodeId: 'deployment', gvr: deployments, name: 'd1', namespace: 'default' } as const;
const d2 = { nodeId: 'deployment', gvr: deployments, name: 'd2', namespace: 'default' } as const;
const cms = { nodeId: 'configs', gvr: configmaps, namespace: 'default', selector: parseSelector('app=web') } as const;

describe('IndexedWatchCoordinator informer ownership', () => {
  it('ensures each GVR once under one owner id and releases it when the instance is removed', async () => {
    const { coordinator, watchManager } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch(d1);
    await w.watch(d2);
    await w.watch({ ...d1, nodeId: 'other' });
    w.done(true);
    expect(watchManager.calls).toEqual([{ op: 'ensure', gvr: deployments, ownerId: 'coordinator' }]);

    coordinator.removeInstance(webapps, app1);
    expect(watchManager.calls.at(-1)).toEqual({ op: 'release', gvr: deployments, ownerId: 'coordinator' });
    expect(watchManager.activeWatchCount()).toBe(0);
    expect(coordinator.instanceWatchCount()).toBe(0);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('releases a GVR when done(true) drops its last request, and keeps the GVRs still requested', async () => {
    const { coordinator, watchManager } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch(d1);
    await w1.watch({ nodeId: 'service', gvr: services, name: 's1', namespace: 'default' });
    await w1.watch(cms);
    w1.done(true);
    expect(watchManager.activeWatchCount()).toBe(3);

    const w2 = coordinator.forInstance(webapps, app1);
    await w2.watch(d1);
    w2.done(true);
    expect(watchManager.isWatching(deployments)).toBe(true);
    expect(watchManager.isWatching(services)).toBe(false);
    expect(watchManager.isWatching(configmaps)).toBe(false);
    expect(watchManager.count('release')).toBe(2);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('keeps a GVR while another parent still watches it, and releases it with the last one', async () => {
    const { coordinator, watchManager } = newHarness();
    const db1 = { namespace: 'default', name: 'db1' };
    await coordinator.forInstance(webapps, app1).watch(d1);
    await coordinator.forInstance(databases, db1).watch(d2);

    coordinator.removeInstance(webapps, app1);
    expect(watchManager.isWatching(deployments)).toBe(true);
    expect(watchManager.count('release')).toBe(0);

    coordinator.removeInstance(databases, db1);
    expect(watchManager.isWatching(deployments)).toBe(false);
    expect(watchManager.count('release')).toBe(1);
  });

  it('removes every instance of a parent GVR and releases what only they used', async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    const db1 = { namespace: 'default', name: 'db1' };
    await coordinator.forInstance(webapps, app1).watch(d1);
    await coordinator.forInstance(webapps, app2).watch(cms);
    await coordinator.forInstance(databases, db1).watch({ ...d1, name: 'shared' });

    coordinator.removeParentGVR(webapps);
    expect(coordinator.instanceWatchCount()).toBe(1);
    expect(watchManager.isWatching(configmaps)).toBe(false);
    expect(watchManager.isWatching(deployments)).toBe(true);
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    coordinator.routeEvent(event(configmaps, 'default', 'c', { app: 'web' }));
    expect(enqueued.take()).toEqual([]);

    coordinator.removeParentGVR(databases);
    expect(watchManager.activeWatchCount()).toBe(0);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('releases a collection-only GVR when its instance goes', async () => {
    const { coordinator, watchManager } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch(cms);
    w.done(true);
    expect(watchManager.isWatching(configmaps, 'coordinator')).toBe(true);
    coordinator.removeInstance(webapps, app1);
    expect(watchManager.isWatching(configmaps)).toBe(false);
  });

  it('does nothing when removing unknown instances or parents', async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    await coordinator.forInstance(webapps, app1).watch(d1);
    coordinator.removeInstance(webapps, { namespace: 'x', name: 'nope' });
    coordinator.removeInstance(databases, app1);
    coordinator.removeParentGVR(databases);
    coordinator.removeInstance(webapps, app2);
    expect(watchManager.count('release')).toBe(0);
    expect(coordinator.instanceWatchCount()).toBe(1);
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([APP1]);
  });

  it('re-ensures a GVR requested again after it was released', async () => {
    const { coordinator, watchManager } = newHarness();
    await coordinator.forInstance(webapps, app1).watch(d1);
    coordinator.removeInstance(webapps, app1);
    await coordinator.forInstance(webapps, app1).watch(d1);
    expect(watchManager.calls.map((c) => c.op)).toEqual(['ensure', 'release', 'ensure']);
    expect(watchManager.isWatching(deployments)).toBe(true);
  });
});

describe('IndexedWatchCoordinator watch() failures', () => {
  it('rejects with the watch manager error as cause and leaves no request behind', async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    const cause = new Error('the server could not find the requested resource');
    watchManager.failNext(deployments, cause);
    const w = coordinator.forInstance(webapps, app1);

    const err = await w.watch(d1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WatchUnavailableError);
    expect((err as Error).cause).toBe(cause);
    expect((err as Error).message).toBe(
      'cannot watch apps/v1/deployments for instance demo.protean.dev/v1/webapps default/app1, node "deployment": the server could not find the requested resource',
    );
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    expect(coordinator.instanceWatchCount()).toBe(0);
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([]);
    // The watch manager already dropped our ownership: no release, nothing owned.
    expect(watchManager.count('release')).toBe(0);
    expect(watchManager.activeWatchCount()).toBe(0);

    w.done(true);
    expect(coordinator.instanceWatchCount()).toBe(0);
    // A later request tries again.
    await coordinator.forInstance(webapps, app1).watch(d1);
    expect(watchManager.count('ensure', deployments)).toBe(2);
  });

  it('rejects when ensureWatch throws synchronously', async () => {
    const enqueued = new EnqueueRecorder();
    const throwing = new FakeWatchManager();
    throwing.ensureWatch = () => {
      throw new Error('boom');
    };
    const coordinator = new IndexedWatchCoordinator(throwing, enqueued.enqueue, silentLogger());
    await expect(coordinator.forInstance(webapps, app1).watch(d1)).rejects.toThrow(/cannot watch apps\/v1\/deployments .*: boom/);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
  });

  it('keeps the committed target of a node whose new target failed, so done(false) restores it', async () => {
    const { coordinator, watchManager, enqueued } = newHarness();
    const w1 = coordinator.forInstance(webapps, app1);
    await w1.watch(d1);
    w1.done(true);

    watchManager.failNext(services, new Error('forbidden'));
    const w2 = coordinator.forInstance(webapps, app1);
    await expect(w2.watch({ ...d1, gvr: services })).rejects.toThrow(WatchUnavailableError);
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([APP1]);
    w2.done(false);

    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([APP1]);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
    expect(watchManager.isWatching(deployments)).toBe(true);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('does not let a failed re-target undo a later request of the same node', async () => {
    const { coordinator, watchManager, enqueued } = newHarness('manual');
    const w = coordinator.forInstance(webapps, app1);
    const failing = track(w.watch({ ...d1, gvr: services }));
    const retry = track(w.watch(d1));
    watchManager.rejectSync(services, new Error('forbidden'));
    watchManager.resolveSync(deployments);
    await flushMicrotasks();
    expect(failing.state).toBe('rejected');
    expect(retry.state).toBe('resolved');
    w.done(true);
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([APP1]);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it('fails every request waiting on the same sync, across instances', async () => {
    const { coordinator, watchManager } = newHarness('manual');
    const a = track(coordinator.forInstance(webapps, app1).watch(d1));
    const b = track(
      coordinator.forInstance(webapps, app2).watch({ nodeId: 'configs', gvr: deployments, selector: parseSelector('app=web') }),
    );
    expect(watchManager.count('ensure')).toBe(1);
    watchManager.rejectSync(deployments, new Error('timed out waiting for sync'));
    await flushMicrotasks();
    expect([a.state, b.state]).toEqual(['rejected', 'rejected']);
    expect((b.error as Error).message).toMatch(/default\/app2, node "configs": timed out/);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    expect(coordinator.instanceWatchCount()).toBe(0);
  });

  it('drops a failed request even if its cycle was committed before the sync failed', async () => {
    const { coordinator, watchManager, enqueued } = newHarness('manual');
    const w = coordinator.forInstance(webapps, app1);
    const pending = track(w.watch(d1));
    w.done(true);
    watchManager.rejectSync(deployments, new Error('no such resource'));
    await flushMicrotasks();
    expect(pending.state).toBe('rejected');
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([]);
    expect(coordinator.instanceWatchCount()).toBe(0);
    expect(watchManager.count('release')).toBe(0);
  });
});

describe('IndexedWatchCoordinator ownership under concurrency', () => {
  it('resolves watch() only once the informer synced, sharing one ensureWatch per GVR', async () => {
    const { coordinator, watchManager } = newHarness('manual');
    const a = track(coordinator.forInstance(webapps, app1).watch(d1));
    const b = track(coordinator.forInstance(webapps, app2).watch(d2));
    await flushMicrotasks();
    expect([a.state, b.state]).toEqual(['pending', 'pending']);
    expect(watchManager.count('ensure')).toBe(1);
    watchManager.resolveSync(deployments);
    await flushMicrotasks();
    expect([a.state, b.state]).toEqual(['resolved', 'resolved']);
    // Once owned, further requests resolve without asking the watchManager.
    await coordinator.forInstance(webapps, app1).watch({ ...d1, name: 'd3', nodeId: 'x' });
    expect(watchManager.count('ensure')).toBe(1);
  });

  it('releases after the sync settles when done(false) removed the last request mid-sync', async () => {
    const { coordinator, watchManager } = newHarness('manual');
    const w = coordinator.forInstance(webapps, app1);
    const p = track(w.watch(d1));
    w.done(false);
    expect(watchManager.count('release')).toBe(0);
    expect(watchManager.isWatching(deployments, 'coordinator')).toBe(true);

    watchManager.resolveSync(deployments);
    await flushMicrotasks();
    expect(p.state).toBe('resolved');
    expect(watchManager.calls.map((c) => c.op)).toEqual(['ensure', 'release']);
    expect(watchManager.isWatching(deployments)).toBe(false);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('keeps ownership when a new request arrives between the last removal and the sync', async () => {
    const { coordinator, watchManager, enqueued } = newHarness('manual');
    const w = coordinator.forInstance(webapps, app1);
    const first = track(w.watch(d1));
    coordinator.removeInstance(webapps, app1);
    const second = track(coordinator.forInstance(webapps, app2).watch(d2));
    expect(watchManager.count('ensure')).toBe(1);

    watchManager.resolveSync(deployments);
    await flushMicrotasks();
    expect([first.state, second.state]).toEqual(['resolved', 'resolved']);
    expect(watchManager.count('release')).toBe(0);
    expect(watchManager.isWatching(deployments, 'coordinator')).toBe(true);
    coordinator.routeEvent(event(deployments, 'default', 'd2'));
    coordinator.routeEvent(event(deployments, 'default', 'd1'));
    expect(enqueued.take()).toEqual([APP2]);

    coordinator.removeInstance(webapps, app2);
    expect(watchManager.isWatching(deployments)).toBe(false);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('does not release a GVR whose sync failed after its last request was already removed', async () => {
    const { coordinator, watchManager } = newHarness('manual');
    const w = coordinator.forInstance(webapps, app1);
    const p = track(w.watch(d1));
    w.done(false);
    watchManager.rejectSync(deployments, new Error('forbidden'));
    await flushMicrotasks();
    expect(p.state).toBe('rejected');
    expect(watchManager.count('release')).toBe(0);
    expect(watchManager.activeWatchCount()).toBe(0);
    // The next request starts a fresh sync.
    const again = track(coordinator.forInstance(webapps, app1).watch(d1));
    expect(watchManager.count('ensure')).toBe(2);
    watchManager.resolveSync(deployments);
    await flushMicrotasks();
    expect(again.state).toBe('resolved');
  });

  it('never releases while another instance still requests the GVR', async () => {
    const { coordinator, watchManager } = newHarness('manual');
    const w1 = coordinator.forInstance(webapps, app1);
    const w2 = coordinator.forInstance(webapps, app2);
    const a = track(w1.watch(d1));
    const b = track(w2.watch(d2));
    w1.done(false);
    watchManager.resolveSync(deployments);
    await flushMicrotasks();
    expect([a.state, b.state]).toEqual(['resolved', 'resolved']);
    expect(watchManager.count('release')).toBe(0);
    w2.done(true);
    const w1b = coordinator.forInstance(webapps, app1);
    await w1b.watch(d1);
    w1b.done(false);
    expect(watchManager.count('release')).toBe(0);
    coordinator.removeInstance(webapps, app2);
    expect(watchManager.count('release')).toBe(1);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('settles ownership consistently through interleaved syncs of several GVRs', async () => {
    const { coordinator, watchManager, enqueued } = newHarness('manual');
    const w = coordinator.forInstance(webapps, app1);
    const a = track(w.watch(d1));
    const b = track(w.watch(cms));
    const c = track(w.watch({ nodeId: 'deployment', gvr: services, name: 's', namespace: 'default' }));
    // The re-target released nothing yet: deployments is still syncing.
    expect(watchManager.count('release')).toBe(0);
    watchManager.resolveSync(configmaps);
    watchManager.resolveSync(deployments);
    await flushMicrotasks();
    expect(watchManager.calls.filter((x) => x.op === 'release').map((x) => gvrKey(x.gvr))).toEqual(['apps/v1/deployments']);
    watchManager.resolveSync(services);
    await flushMicrotasks();
    expect([a.state, b.state, c.state]).toEqual(['resolved', 'resolved', 'resolved']);
    w.done(true);
    expect(watchManager.isWatching(services)).toBe(true);
    expect(watchManager.isWatching(configmaps)).toBe(true);
    expect(watchManager.isWatching(deployments)).toBe(false);
    coordinator.routeEvent(event(services, 'default', 's'));
    expect(enqueued.take()).toEqual([APP1]);
    expect(watchManager.anomalies).toEqual([]);
  });
});
