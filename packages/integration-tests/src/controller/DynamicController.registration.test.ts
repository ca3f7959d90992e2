import { afterEach, describe, expect, it } from '@jest/globals';
import { ParentSyncError, type GroupVersionResource } from '@protean/core';
import { createTestController, Deferred, FakeStatusError, HandlerRecorder, ObserverRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const other: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'databases' };

describe('DynamicController register and deregister', () => {
  let t: TestController;
  const gates: Deferred[] = [];

  afterEach(async () => {
    for (const g of gates.splice(0)) g.resolve();
    await t.dispose();
  });

  it('reconciles every existing instance once the parent informer has synced', async () => {
    t = createTestController();
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    t.source.add(parent, { name: 'global' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    expect(t.controller.registeredGVRs()).toEqual([parent]);
    expect(t.controller.hasSynced(parent)).toBe(true);
    await t.waitFor(() => h.count() === 3);
    expect(h.keys().sort()).toEqual(['global', 'ns/a', 'ns/b']);
    expect(h.calls[0]!.ctx.gvr).toEqual(parent);
  });

  it('gives each handler call a child logger and the shutdown signal', async () => {
    t = createTestController();
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() === 1);
    const { ctx } = h.calls[0]!;
    expect(ctx.logger.bindings()).toMatchObject({ gvr: 'demo.protean.dev/v1/webapps', instance: 'ns/a' });
    expect(ctx.signal.aborted).toBe(false);
  });

  it('resolves register only after the informer syncs, and enqueues the initial list', async () => {
    t = createTestController();
    t.source.setAutoSync(parent, false);
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const h = new HandlerRecorder();
    await t.start();
    let registered = false;
    const registering = t.register(parent, h.handler).then(() => (registered = true));
    await t.waitFor(() => t.source.informer(parent) !== undefined);
    expect(t.controller.hasSynced(parent)).toBe(false);
    expect(registered).toBe(false);
    t.source.informer(parent)!.markSynced();
    await registering;
    expect(t.controller.hasSynced(parent)).toBe(true);
    await t.waitFor(() => h.count() === 1);
  });

  it('rejects register with a ParentSyncError naming the GVR when the informer cannot sync, leaving no handler', async () => {
    t = createTestController();
    t.source.failSync(parent, new FakeStatusError(404));
    const h = new HandlerRecorder();
    await t.start();
    const err = await t.register(parent, h.handler).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParentSyncError);
    const syncErr = err as ParentSyncError;
    expect(syncErr.message).toContain('demo.protean.dev/v1/webapps');
    expect(syncErr.gvr).toEqual(parent);
    // The 404 fails the sync at once (no sync timeout), and is kept as the cause.
    expect(syncErr.cause).toMatchObject({ name: 'KindNotServedError', reason: 'NotFound' });
    expect(t.controller.registeredGVRs()).toEqual([]);
    expect(t.controller.hasSynced(parent)).toBe(false);
    expect(t.source.informer(parent)!.isStopped()).toBe(true);

    // Nothing was left behind: once the GVR is served, a new register works.
    t.source.clearSyncFailure(parent);
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() === 1);
  });

  it('leaves no handler behind when two overlapping first registrations both fail', async () => {
    t = createTestController();
    t.source.setAutoSync(parent, false);
    await t.start();
    const first = t.register(parent, new HandlerRecorder().handler).catch((err: unknown) => err);
    const second = t.register(parent, new HandlerRecorder().handler).catch((err: unknown) => err);
    await t.waitFor(() => t.source.informer(parent) !== undefined);
    t.source.informer(parent)!.reportWatchError(new FakeStatusError(403));
    const [e1, e2] = await Promise.all([first, second]);
    expect(e1).toBeInstanceOf(ParentSyncError);
    expect(e2).toBeInstanceOf(ParentSyncError);
    expect(t.controller.activeWatchCount()).toBe(0);
    expect(t.controller.registeredGVRs()).toEqual([]);
  });

  it('enqueues parent add and delete events, including a delete seen only as a tombstone', async () => {
    t = createTestController();
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    await t.waitFor(() => h.count() === 1);
    t.source.delete(parent, { namespace: 'ns', name: 'a' });
    await t.waitFor(() => h.count() === 2);
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    await t.waitFor(() => h.count() === 3);
    t.source.delete(parent, { namespace: 'ns', name: 'b' }, { finalStateUnknown: true });
    await t.waitFor(() => h.count() === 4);
    expect(h.keys()).toEqual(['ns/a', 'ns/a', 'ns/b', 'ns/b']);
  });

  it('skips parent updates whose generation did not change and reconciles those whose generation did', async () => {
    const observer = new ObserverRecorder();
    t = createTestController({ observer });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() === 2);

    t.source.update(parent, { name: 'a', namespace: 'ns', labels: { tier: 'web' } }); // metadata only
    t.source.update(parent, { name: 'b', namespace: 'ns', generation: 2 });
    // One worker, FIFO: had a's update been enqueued, it would have run before b's.
    await t.waitFor(() => h.count() === 3);
    expect(h.keys().slice(2)).toEqual(['ns/b']);
    expect(observer.parentEvents.filter((e) => e.type === 'update')).toHaveLength(2);
  });

  it('swaps the handler on re-register and enqueues every cached instance again, keeping the informer', async () => {
    t = createTestController();
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    const first = new HandlerRecorder();
    const second = new HandlerRecorder();
    await t.start();
    await t.register(parent, first.handler);
    await t.waitFor(() => first.count() === 2);
    await t.register(parent, second.handler);
    await t.waitFor(() => second.count() === 2);
    expect(second.keys().sort()).toEqual(['ns/a', 'ns/b']);
    t.source.update(parent, { name: 'a', namespace: 'ns', generation: 2 });
    await t.waitFor(() => second.count() === 3);
    expect(first.count()).toBe(2);
    expect(t.source.informers(parent)).toHaveLength(1);
    expect(t.controller.registeredGVRs()).toEqual([parent]);
  });

  it('deregisters: removes the handler, stops a parent-only informer, and ignores an unknown GVR', async () => {
    t = createTestController();
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    await t.register(other, h.handler);
    expect(t.watchManager.activeWatchCount()).toBe(2);
    expect(t.controller.activeWatchCount()).toBe(2);
    await t.controller.deregister(parent);
    expect(t.controller.registeredGVRs()).toEqual([other]);
    expect(t.controller.hasSynced(parent)).toBe(false);
    expect(t.source.informer(parent)!.isStopped()).toBe(true);
    expect(t.source.informer(other)!.isStopped()).toBe(false);
    expect(t.watchManager.activeWatchCount()).toBe(1);
    await expect(t.controller.deregister({ group: 'x', version: 'v1', resource: 'nothing' })).resolves.toBeUndefined();
  });

  it('removes the watches a handler declared while its parent was being deregistered', async () => {
    const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
    t = createTestController();
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const entered = new Deferred();
    const release = new Deferred();
    gates.push(entered, release);
    const h = new HandlerRecorder(async (req) => {
      entered.resolve();
      await release.promise;
      // Runs after deregister already cleaned the watchCoordinator.
      const watcher = t.controller.watchCoordinator().forInstance(parent, req);
      await watcher.watch({ nodeId: 'cm', gvr: configmaps, namespace: req.namespace, name: 'a-config' });
      watcher.done(true);
    });
    await t.start();
    await t.register(parent, h.handler);
    await entered.promise;

    await t.controller.deregister(parent);
    release.resolve();
    await t.waitFor(() => h.count() === 1 && t.source.informers(configmaps).length === 1 && t.watchCoordinator.instanceWatchCount() === 0);
    expect(t.watchCoordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    await t.waitFor(() => t.source.informer(configmaps)!.isStopped());
    expect(t.controller.activeWatchCount()).toBe(0);
  });

  it('calls a deregistered handler no more: items already queued are dropped when picked', async () => {
    const observer = new ObserverRecorder();
    t = createTestController({ observer });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    const entered = new Deferred();
    const release = new Deferred();
    gates.push(entered, release);
    const h = new HandlerRecorder(async () => {
      entered.resolve();
      await release.promise;
    });
    await t.start();
    await t.register(parent, h.handler);
    await entered.promise;
    expect(t.controller.queueLength()).toBe(1); // b waits behind a

    await t.controller.deregister(parent);
    release.resolve();
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['success', 'dropped']);
    expect(h.keys()).toEqual(['ns/a']);
    expect(t.controller.queueLength()).toBe(0);
  });
});
