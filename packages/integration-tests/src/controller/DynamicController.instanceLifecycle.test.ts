import { afterEach, describe, expect, it } from '@jest/globals';
import { requeue, type GroupVersionResource, type NamespacedName, type ReconcileContext } from '@protean/core';
import { createTestController, Deferred, HandlerRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const a: NamespacedName = { namespace: 'ns', name: 'a' };

/**
 * The three rules of an instance's watches: a pass that resolves (or ends
 * with a requeue signal) commits exactly what it declared, possibly
 * nothing; a deleted instance is forgotten once no handler for it runs,
 * whatever the handler returns; a failed pass keeps the previous set.
 */
describe('DynamicController: the watches of an instance follow its passes and its deletion', () => {
  let t: TestController;
  const gates: Deferred[] = [];

  afterEach(async () => {
    for (const g of gates.splice(0)) g.resolve();
    await t.dispose();
  });

  /** True while the fake cluster still has instance `a`, as a handler reading the API server would see it. */
  const parentExists = (): boolean => t.source.get(parent, a) !== undefined;

  /** Watches `a-config` while the parent exists, and returns early (no watch) once it is gone. */
  function returnsEarlyWhenGone(): HandlerRecorder {
    return new HandlerRecorder(async (req, ctx) => {
      if (!parentExists()) return; // NotFound: nothing to do
      await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
    });
  }

  async function startWith(h: HandlerRecorder): Promise<void> {
    t = createTestController({ logFailures: false, config: { minRetryDelayMs: 60_000, maxRetryDelayMs: 60_000 } });
    t.source.add(parent, { ...a, generation: 1 });
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() >= 1 && t.controller.queueLength() === 0 && t.watchCoordinator.instanceWatchCount() === 1);
    expect(t.source.runningInformers(configmaps)).toHaveLength(1);
  }

  it('forgets a deleted instance whose handler resolves without declaring, and stops the child informer', async () => {
    const h = returnsEarlyWhenGone();
    await startWith(h);
    t.source.delete(parent, a);
    await t.waitFor(() => h.count() === 2 && t.controller.queueLength() === 0);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 0);
    expect(t.watchCoordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    await t.waitFor(() => t.source.runningInformers(configmaps).length === 0);
    // A later change of the former child reconciles nothing.
    t.source.add(configmaps, { namespace: 'ns', name: 'a-config' });
    await new Promise((r) => setTimeout(r, 20));
    expect(h.count()).toBe(2);
  });

  it('forgets an instance deleted by a relist tombstone', async () => {
    const h = returnsEarlyWhenGone();
    await startWith(h);
    t.source.delete(parent, a, { finalStateUnknown: true });
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 0 && h.count() === 2);
    await t.waitFor(() => t.source.runningInformers(configmaps).length === 0);
  });

  it('drops the previous watches when a pass on an existing instance declares nothing', async () => {
    let declare = true;
    const h = new HandlerRecorder(async (req, ctx) => {
      if (declare) await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
    });
    await startWith(h);
    declare = false;
    t.source.update(parent, { ...a, generation: 2 });
    await t.waitFor(() => h.count() === 2 && t.controller.queueLength() === 0);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 0);
    await t.waitFor(() => t.source.runningInformers(configmaps).length === 0);
    expect(parentExists()).toBe(true);
  });

  it('drops the previous watches when a pass declares nothing and ends with a requeue signal', async () => {
    let declare = true;
    const h = new HandlerRecorder(async (req, ctx) => {
      if (declare) {
        await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
        return;
      }
      throw requeue.neededAfter(new Error('waiting for something else'), 60_000);
    });
    await startWith(h);
    declare = false;
    t.source.update(parent, { ...a, generation: 2 });
    await t.waitFor(() => h.count() === 2 && t.watchCoordinator.instanceWatchCount() === 0);
  });

  it('keeps the previous watches when a pass fails', async () => {
    let fail = false;
    const h = new HandlerRecorder(async (req, ctx) => {
      if (!fail) {
        await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
        return;
      }
      await ctx.watcher.watch({ nodeId: 'other', gvr: configmaps, namespace: req.namespace, name: `${req.name}-other` });
      throw new Error('boom');
    });
    await startWith(h);
    fail = true;
    t.source.update(parent, { ...a, generation: 2 });
    await t.waitFor(() => h.count() === 2 && t.controller.queueLength() === 0);
    await t.waitFor(() => t.watchCoordinator.watchRequestCount().scalar === 1);
    expect(t.watchCoordinator.instanceWatchCount()).toBe(1);
    // The committed watch still routes: a change of a-config reconciles a again (after its backoff is forgotten).
    t.queue.forget({ gvr: parent, ...a });
    fail = false;
    t.source.add(configmaps, { namespace: 'ns', name: 'a-config' });
    await t.waitFor(() => h.count() >= 3);
  });

  it('keeps nothing of a deleted instance whose handler fails, even though a failed pass keeps its watches', async () => {
    const h = new HandlerRecorder(async (req, ctx) => {
      await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
      if (!parentExists()) throw new Error('cleanup failed');
    });
    await startWith(h);
    t.source.delete(parent, a);
    await t.waitFor(() => h.count() === 2);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 0);
    await t.waitFor(() => t.source.runningInformers(configmaps).length === 0);
  });

  it('forgets an instance deleted while its handler runs once the handler returns, whatever it declared', async () => {
    const entered = new Deferred();
    const release = new Deferred();
    gates.push(entered, release);
    const h = new HandlerRecorder(async (req: NamespacedName, ctx: ReconcileContext) => {
      await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
      if (h.count() === 2) {
        entered.resolve();
        await release.promise;
        // Declares more after the delete, as a handler unaware of it would.
        await ctx.watcher.watch({ nodeId: 'more', gvr: configmaps, namespace: req.namespace, name: `${req.name}-more` });
      }
    });
    await startWith(h);
    t.source.update(parent, { ...a, generation: 2 });
    await entered.promise;
    t.source.delete(parent, a);
    // The handler is still running: its state stays until it returns.
    expect(t.watchCoordinator.instanceWatchCount()).toBe(1);
    release.resolve();
    await t.waitFor(() => h.count() === 3 && t.controller.queueLength() === 0);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 0);
    expect(t.watchCoordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    await t.waitFor(() => t.source.runningInformers(configmaps).length === 0);
  });

  it('keeps the child informer a deleted instance shared with another instance', async () => {
    const b: NamespacedName = { namespace: 'ns', name: 'b' };
    const h = new HandlerRecorder(async (req, ctx) => {
      if (t.source.get(parent, req) === undefined) return;
      await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
    });
    t = createTestController({ logFailures: false });
    t.source.add(parent, a);
    t.source.add(parent, b);
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 2 && t.controller.queueLength() === 0);
    t.source.delete(parent, a);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 1 && h.count(a) === 2);
    expect(t.watchCoordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
    expect(t.source.runningInformers(configmaps)).toHaveLength(1);
  });
});
