import { afterEach, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource, Handler, ObjectIdentifiers } from '@protean/core';
import { createTestController, FakeClock, HandlerRecorder, ObserverRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

describe('DynamicController with the coordinator', () => {
  let t: TestController;

  afterEach(async () => {
    await t.dispose();
  });

  /** A parent handler that watches the ConfigMap named after its instance. */
  function watchingConfigMap(t: TestController): HandlerRecorder {
    const reconcile: Handler = async (req) => {
      const watcher = t.controller.watchCoordinator().forInstance(parent, req);
      await watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
      watcher.done(true);
    };
    return new HandlerRecorder(reconcile);
  }

  it('re-reconciles an instance when a child it watches is added, changed or deleted', async () => {
    t = createTestController({ logFailures: false });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const h = watchingConfigMap(t);
    await t.start();
    await t.register(parent, h.handler);
    // The ConfigMap informer starts empty: the only reconcile so far is the parent's add.
    await t.waitFor(() => h.count() === 1 && t.watchCoordinator.instanceWatchCount() === 1);
    expect(t.controller.watchCoordinator()).toBe(t.watchCoordinator);
    expect(t.source.runningInformers(configmaps)).toHaveLength(1);

    t.source.add(configmaps, { name: 'a-config', namespace: 'ns' });
    await t.waitFor(() => h.count() === 2);
    t.source.update(configmaps, { name: 'a-config', namespace: 'ns', labels: { x: 'y' } });
    await t.waitFor(() => h.count() === 3);
    t.source.delete(configmaps, { namespace: 'ns', name: 'a-config' });
    await t.waitFor(() => h.count() === 4);
    expect(h.keys()).toEqual(['ns/a', 'ns/a', 'ns/a', 'ns/a']);
  });

  it('keeps a deregistered parent GVR watched while instances use it as a child, and stops it with the last user', async () => {
    t = createTestController({ logFailures: false });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-config', namespace: 'ns' });
    const webapps = watchingConfigMap(t);
    const cms = new HandlerRecorder();
    await t.start();
    // ConfigMaps are a parent GVR too; registered first, so the webapp's
    // child watch joins a synced informer and replays nothing.
    await t.register(configmaps, cms.handler);
    await t.register(parent, webapps.handler);
    await t.waitFor(() => webapps.count() === 1 && cms.count() === 1 && t.watchCoordinator.instanceWatchCount() === 1);

    await t.controller.deregister(configmaps);
    const cmInformer = t.source.informer(configmaps)!;
    expect(cmInformer.isStopped()).toBe(false); // the coordinator still owns it
    expect(t.watchManager.activeWatchCount()).toBe(2);
    t.source.update(configmaps, { name: 'a-config', namespace: 'ns', generation: 2 });
    await t.waitFor(() => webapps.count() === 2);
    expect(cms.count()).toBe(1);

    await t.controller.deregister(parent);
    expect(t.source.informer(parent)!.isStopped()).toBe(true);
    expect(cmInformer.isStopped()).toBe(true); // its last user, the webapp instance, is gone
    expect(t.watchManager.activeWatchCount()).toBe(0);
    expect(t.watchCoordinator.instanceWatchCount()).toBe(0);
  });

  it('reconciles an instance once when its handler starts a child informer that already lists a match', async () => {
    t = createTestController({ logFailures: false });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-config', namespace: 'ns' });
    const h = watchingConfigMap(t);
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() === 1 && t.watchCoordinator.instanceWatchCount() === 1);
    // One worker, FIFO: had the child's initial list re-enqueued a, it would run again before b.
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    await t.waitFor(() => h.keys().includes('ns/b'));
    expect(h.keys()).toEqual(['ns/a', 'ns/b']);
    // Later changes of the child still reach the instance.
    t.source.update(configmaps, { name: 'a-config', namespace: 'ns', labels: { x: 'y' } });
    await t.waitFor(() => h.count() === 3);
    expect(h.keys()[2]).toBe('ns/a');
  });

  it('retries a failing handler that starts a child informer only as its backoff allows', async () => {
    const clock = new FakeClock();
    const observer = new ObserverRecorder();
    t = createTestController({
      logFailures: false,
      clock,
      observer,
      config: { minRetryDelayMs: 50, maxRetryDelayMs: 10_000, queueMaxRetries: 10 },
    });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-config', namespace: 'ns' });
    const a: ObjectIdentifiers = { gvr: parent, namespace: 'ns', name: 'a' };
    const h = new HandlerRecorder(async (req) => {
      if (req.name !== 'a') return;
      const watcher = t.controller.watchCoordinator().forInstance(parent, req);
      try {
        await watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
        throw new Error('boom');
      } catch (err) {
        watcher.done(false);
        throw err;
      }
    });
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => t.queue.numRequeues(a) === 1);
    // One worker, FIFO: an immediate re-run of a would come before the sentinel.
    t.source.add(parent, { name: 'sentinel-1', namespace: 'ns' });
    await t.waitFor(() => h.keys().includes('ns/sentinel-1'));
    expect(h.keys()).toEqual(['ns/a', 'ns/sentinel-1']);
    expect(t.source.runningInformers(configmaps)).toHaveLength(0); // released by done(false)

    await clock.advanceAsync(49);
    expect(h.count({ namespace: 'ns', name: 'a' })).toBe(1);
    await clock.advanceAsync(1); // the first retry, after minRetryDelayMs
    await t.waitFor(() => t.queue.numRequeues(a) === 2);
    t.source.add(parent, { name: 'sentinel-2', namespace: 'ns' });
    await t.waitFor(() => h.keys().includes('ns/sentinel-2'));
    expect(h.keys()).toEqual(['ns/a', 'ns/sentinel-1', 'ns/a', 'ns/sentinel-2']);
    expect(t.source.informers(configmaps)).toHaveLength(2); // one informer per attempt, none in between
    expect(observer.outcomes(parent).filter((o) => o === 'error')).toHaveLength(2);
  });
});
