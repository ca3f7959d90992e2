import { afterEach, describe, expect, it } from '@jest/globals';
import { parseSelector, requeue, type GroupVersionResource, type Handler } from '@protean/core';
import { createTestController, FakeStatusError, HandlerRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

describe('ctx.watcher: the instance watcher settled from the handler outcome', () => {
  let t: TestController;

  afterEach(async () => {
    await t.dispose();
  });

  /** Watches `<name>-config` through ctx.watcher without calling done, then does `then`. */
  function watching(then: (call: number) => Promise<void> = () => Promise.resolve()): HandlerRecorder {
    const h = new HandlerRecorder();
    const reconcile: Handler = async (req, ctx) => {
      await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
      await then(h.count());
    };
    h.impl = reconcile;
    return h;
  }

  async function startWith(h: HandlerRecorder, config = {}): Promise<void> {
    t = createTestController({ logFailures: false, config: { minRetryDelayMs: 60_000, maxRetryDelayMs: 60_000, ...config } });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() >= 1 && t.controller.queueLength() === 0);
  }

  /**
   * First call: watch `a-config` through ctx.watcher, then `first`. Later
   * calls watch `a-other` instead and succeed, so `a-config` is stale for
   * them only if the first cycle was committed on its own.
   */
  function watchThenSwitch(first: () => Promise<void>): HandlerRecorder {
    const h = new HandlerRecorder();
    h.impl = async (req, ctx) => {
      const later = h.count() > 1;
      await ctx.watcher.watch({
        nodeId: later ? 'other' : 'config',
        gvr: configmaps,
        namespace: req.namespace,
        name: later ? 'a-other' : 'a-config',
      });
      if (!later) await first();
    };
    return h;
  }

  it('commits an open cycle when the handler succeeds, so the next pass can drop what it no longer declares', async () => {
    const h = watchThenSwitch(() => Promise.resolve());
    await startWith(h);
    t.source.add(configmaps, { name: 'a-config', namespace: 'ns' });
    await t.waitFor(() => h.count() === 2 && t.controller.queueLength() === 0);
    await t.waitFor(() => t.watchCoordinator.watchRequestCount().scalar === 1);
    t.source.update(configmaps, { name: 'a-config', namespace: 'ns', labels: { v: '2' } });
    t.source.add(configmaps, { name: 'a-other', namespace: 'ns' });
    await t.waitFor(() => h.count() === 3);
    expect(t.watchCoordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
  });

  it('discards an open first cycle when the handler fails, keeping no watch and no informer', async () => {
    const h = watching(() => Promise.reject(new Error('boom')));
    await startWith(h);
    await t.waitFor(() => t.watchCoordinator.watchRequestCount().scalar === 0);
    expect(t.watchCoordinator.instanceWatchCount()).toBe(0);
    await t.waitFor(() => t.source.runningInformers(configmaps).length === 0);
  });

  it('commits an open cycle when the handler rejects with a requeue signal', async () => {
    const h = watchThenSwitch(() => Promise.reject(requeue.neededAfter(new Error('waiting'), 60_000)));
    await startWith(h);
    t.source.add(configmaps, { name: 'a-config', namespace: 'ns' });
    await t.waitFor(() => h.count() === 2 && t.controller.queueLength() === 0);
    await t.waitFor(() => t.watchCoordinator.watchRequestCount().scalar === 1);
  });

  it('leaves a cycle the handler settled itself alone', async () => {
    const h = new HandlerRecorder();
    h.impl = async (req, ctx) => {
      const later = h.count() > 1;
      await ctx.watcher.watch({
        nodeId: later ? 'other' : 'config',
        gvr: configmaps,
        namespace: req.namespace,
        name: later ? 'a-other' : 'a-config',
      });
      ctx.watcher.done(!later); // the later pass discards its cycle, then succeeds
    };
    await startWith(h);
    t.source.add(configmaps, { name: 'a-config', namespace: 'ns' });
    await t.waitFor(() => h.count() === 2 && t.controller.queueLength() === 0);
    // Settling again on success would commit an empty cycle and drop a-config.
    expect(t.watchCoordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
    t.source.update(configmaps, { name: 'a-config', namespace: 'ns', labels: { v: '2' } });
    await t.waitFor(() => h.count() === 3);
  });

  it('forgets the watches of an instance whose handler reports NotFound once it is gone from the cache', async () => {
    let deleted = false;
    const h = watching(async () => {
      if (deleted) throw new FakeStatusError(404);
    });
    await startWith(h);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 1);
    deleted = true;
    t.source.delete(parent, { namespace: 'ns', name: 'a' });
    await t.waitFor(() => h.count() === 2 && t.watchCoordinator.instanceWatchCount() === 0);
    expect(t.watchCoordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
  });

  it('lets a handler read a watched child collection from the informer cache', async () => {
    const counts: number[] = [];
    const h = new HandlerRecorder(async (req, ctx) => {
      await ctx.watcher.watch({ nodeId: 'members', gvr: configmaps, namespace: req.namespace, selector: parseSelector(`app=${req.name}`) });
      const cached = t.controller.informer(configmaps)!.list();
      counts.push(cached.filter((o) => o.metadata.namespace === req.namespace && o.metadata.labels?.['app'] === req.name).length);
    });
    t = createTestController({ logFailures: false });
    t.source.add(configmaps, { name: 'x', namespace: 'ns', labels: { app: 'a' } });
    t.source.add(configmaps, { name: 'y', namespace: 'other', labels: { app: 'a' } });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => counts.length === 1);
    t.source.add(configmaps, { name: 'z', namespace: 'ns', labels: { app: 'a' } });
    await t.waitFor(() => counts.length === 2);
    expect(counts).toEqual([1, 2]);
    expect(t.controller.informer({ group: 'x', version: 'v1', resource: 'unwatched' })).toBeUndefined();
  });
});
