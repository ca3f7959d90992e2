import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gvrKey, type InformerCache } from '@protean/core';
import { Informer } from '@protean/watch-manager';
import { Deferred } from '@protean/core/testing';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { childName, CountingReconciler } from './CountingReconciler.js';
import { defineCrd } from './crdLifecycle.js';
import { E2eCluster } from './E2eCluster.js';
import { CONFIGMAPS, GADGETS, WIDGETS, type E2eKind } from './kinds.js';
import { startRealController, type RealController } from './startRealController.js';

/** True while `informer` is an informer engine that has not been stopped. */
function running(informer: InformerCache | undefined): boolean {
  return informer instanceof Informer && !informer.isStopped();
}

const CONVERGE = { timeoutMs: 30_000, intervalMs: 100 };

let api: KubeApiServer;
let cluster: E2eCluster;
let rc: RealController;
let reconciler: CountingReconciler;

/** Resolves once the instance's status reports `count` for its current generation. */
async function statusSettles(kind: E2eKind, name: string, count: number): Promise<void> {
  await waitFor(
    async () => {
      const obj = await cluster.instance(kind, name);
      return obj?.status?.count === count && obj.status.observedGeneration === obj.metadata.generation;
    },
    { ...CONVERGE, message: `${kind.kind} ${name} to report count=${count} for its generation` },
  );
}

async function childMessage(instance: string): Promise<string | undefined> {
  return (await cluster.configMap(childName(instance)))?.data?.['message'];
}

beforeAll(async () => {
  api = await startKubeApiServer();
  cluster = new E2eCluster(api.kubeConfig, 'e2e');
  await cluster.createNamespace();
  // One worker: reconciles run in queue order, which the generation-skip test relies on.
  rc = startRealController({ kubeConfig: api.kubeConfig, config: { workers: 1 } });
  reconciler = new CountingReconciler(cluster);
});

afterAll(async () => {
  await rc?.stop();
  await api?.stop();
});

describe('DynamicController on a real kube-apiserver', () => {
  it('registers a CRD created at runtime: existing and new instances get a child ConfigMap and their labelled ConfigMaps counted in status', async () => {
    await defineCrd(api.kubeConfig, WIDGETS);
    await cluster.createInstance(WIDGETS, 'alpha', 'hello');
    await cluster.createConfigMap('alpha-m1', { app: 'alpha' });
    await cluster.createConfigMap('alpha-m2', { app: 'alpha' });

    await rc.controller.register(WIDGETS.gvr, reconciler.handlerFor(WIDGETS));
    expect(rc.controller.hasSynced(WIDGETS.gvr)).toBe(true);
    await cluster.createInstance(WIDGETS, 'beta', 'bonjour');

    await statusSettles(WIDGETS, 'alpha', 2);
    await statusSettles(WIDGETS, 'beta', 0);
    expect(await childMessage('alpha')).toBe('hello');
    expect(await childMessage('beta')).toBe('bonjour');
    // One parent informer and one ConfigMap informer shared by all four requests.
    expect(rc.watchManager.activeWatchCount()).toBe(2);
    expect(rc.watchCoordinator.watchRequestCount()).toEqual({ scalar: 2, collection: 2 });
    expect(reconciler.failures).toEqual([]);
  });

  it('recreates a deleted child ConfigMap on the next reconcile (scalar watch)', async () => {
    const before = await cluster.configMap(childName('alpha'));
    await cluster.deleteConfigMap(childName('alpha'));

    await waitFor(
      async () => {
        const now = await cluster.configMap(childName('alpha'));
        return now !== undefined && now.metadata?.uid !== before?.metadata?.uid;
      },
      { ...CONVERGE, message: 'the child ConfigMap of alpha to be recreated' },
    );
    expect(await childMessage('alpha')).toBe('hello');
  });

  it('keeps the status count in step as ConfigMaps are relabelled into and out of a selector (collection watch, old and new labels)', async () => {
    // alpha-m2 moves from alpha to beta: alpha matches its old labels, beta its new ones.
    await cluster.labelConfigMap('alpha-m2', { app: 'beta' });
    await statusSettles(WIDGETS, 'alpha', 1);
    await statusSettles(WIDGETS, 'beta', 1);

    // Out of every selector, then a new one in.
    await cluster.labelConfigMap('alpha-m1', { app: null });
    await cluster.createConfigMap('beta-m3', { app: 'beta', tier: 'x' });
    await statusSettles(WIDGETS, 'alpha', 0);
    await statusSettles(WIDGETS, 'beta', 2);
  });

  it('reconciles a spec change (generation bump) and brings the child ConfigMap data along', async () => {
    const updated = await cluster.setMessage(WIDGETS, 'beta', 'hola');
    expect(updated.metadata.generation).toBe(2);

    await waitFor(async () => (await childMessage('beta')) === 'hola', {
      ...CONVERGE,
      message: "beta's child ConfigMap data to follow the spec",
    });
    await statusSettles(WIDGETS, 'beta', 2);
  });

  it('does not reconcile a metadata-only change of an instance (generation unchanged)', async () => {
    await cluster.createInstance(WIDGETS, 'epsilon', 'e');
    await statusSettles(WIDGETS, 'epsilon', 0);
    // Its create event and the add event of its own child ConfigMap: two reconciles, then nothing
    // (its status writes keep the generation, so they are skipped too).
    await waitFor(() => reconciler.callsFor(WIDGETS, 'epsilon') === 2, { ...CONVERGE, message: 'epsilon to be reconciled twice' });

    const labelled = await cluster.labelInstance(WIDGETS, 'epsilon', { colour: 'blue' });
    expect(labelled.metadata.generation).toBe(1);
    // Barrier: a spec change of beta comes through the same informer after epsilon's label
    // change, and one worker takes the queue in order, so once beta's reconcile of that
    // generation is done, a reconcile of epsilon for the label would have started.
    const barrier = await cluster.setMessage(WIDGETS, 'beta', 'ciao');
    await waitFor(async () => (await cluster.instance(WIDGETS, 'beta'))?.status?.observedGeneration === barrier.metadata.generation, {
      ...CONVERGE,
      message: 'beta to be reconciled at its new generation',
    });

    expect(reconciler.callsFor(WIDGETS, 'epsilon')).toBe(2);
    expect((await cluster.instance(WIDGETS, 'epsilon'))?.status).toEqual({ count: 0, observedGeneration: 1 });
  });

  it('serves a second parent GVR registered at runtime on the same ConfigMap informer', async () => {
    await defineCrd(api.kubeConfig, GADGETS);
    await rc.controller.register(GADGETS.gvr, reconciler.handlerFor(GADGETS));
    await cluster.createInstance(GADGETS, 'gamma', 'hi');
    await cluster.createConfigMap('gamma-m1', { app: 'gamma' });

    await statusSettles(GADGETS, 'gamma', 1);
    expect(await childMessage('gamma')).toBe('hi');
    expect(rc.source.createdFor(CONFIGMAPS)).toBe(1);
    expect(rc.watchManager.activeWatchCount()).toBe(3);
  });

  it('deregister stops the informers nobody else uses, also when a reconcile runs across it, and keeps the shared one until its last user goes', async () => {
    const widgetInformer = rc.watchManager.getInformer(WIDGETS.gvr);
    const gadgetInformer = rc.watchManager.getInformer(GADGETS.gvr);
    const configMapInformer = rc.watchManager.getInformer(CONFIGMAPS);
    expect([widgetInformer, gadgetInformer, configMapInformer].every((i) => running(i))).toBe(true);
    // Hold a reconcile of alpha after it read the instance, before it declares its watches.
    const entered = new Deferred();
    const release = new Deferred();
    reconciler.beforeWatches = async (req) => {
      if (req.name !== 'alpha') return;
      entered.resolve();
      await release.promise;
    };
    await cluster.setMessage(WIDGETS, 'alpha', 'held');
    await entered.promise;

    await rc.controller.deregister(WIDGETS.gvr);
    expect(rc.watchManager.getInformer(WIDGETS.gvr)).toBeUndefined();
    expect(running(widgetInformer)).toBe(false);
    expect(rc.controller.registeredGVRs().map(gvrKey)).toEqual([gvrKey(GADGETS.gvr)]);
    // alpha's handler now declares its watches on a parent that is gone.
    reconciler.beforeWatches = undefined;
    release.resolve();
    await waitFor(() => reconciler.inFlight === 0, { ...CONVERGE, message: "alpha's held reconcile to return" });
    expect(await childMessage('alpha')).toBe('held');

    // Only gamma's requests remain; gamma still watches ConfigMaps, so that informer stays.
    expect(rc.watchCoordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 1 });
    expect(rc.watchManager.getInformer(CONFIGMAPS)).toBe(configMapInformer);
    expect(running(configMapInformer)).toBe(true);

    await rc.controller.deregister(GADGETS.gvr);
    expect(rc.watchManager.activeWatchCount()).toBe(0);
    expect(running(gadgetInformer)).toBe(false);
    expect(running(configMapInformer)).toBe(false);
    expect(rc.watchCoordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    expect(rc.watchCoordinator.instanceWatchCount()).toBe(0);
    expect(reconciler.failures).toEqual([]);
  });

  it('forgets a deleted instance whose handler returns on NotFound, and stops the child informer with its last user', async () => {
    // Widgets alpha, beta and epsilon still exist from the tests above; registering again reconciles them.
    const before = reconciler.calls.length;
    await rc.controller.register(WIDGETS.gvr, reconciler.handlerFor(WIDGETS));
    await waitFor(() => rc.watchCoordinator.instanceWatchCount() === 3, {
      ...CONVERGE,
      message: 'three widgets to declare their watches again',
    });
    const configMapInformer = rc.watchManager.getInformer(CONFIGMAPS);
    expect(running(configMapInformer)).toBe(true);
    expect(reconciler.calls.length).toBeGreaterThan(before);

    await cluster.deleteInstance(WIDGETS, 'alpha');
    await waitFor(() => rc.watchCoordinator.instanceWatchCount() === 2, { ...CONVERGE, message: 'alpha to lose its watches' });
    expect(rc.watchCoordinator.watchRequestCount()).toEqual({ scalar: 2, collection: 2 });
    expect(running(configMapInformer)).toBe(true);

    await cluster.deleteInstance(WIDGETS, 'beta');
    await cluster.deleteInstance(WIDGETS, 'epsilon');
    await waitFor(() => rc.watchCoordinator.instanceWatchCount() === 0, {
      ...CONVERGE,
      message: 'every deleted widget to lose its watches',
    });
    expect(rc.watchCoordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    await waitFor(() => !running(configMapInformer), {
      ...CONVERGE,
      message: 'the ConfigMap informer to stop with its last user',
    });
    expect(rc.watchManager.getInformer(CONFIGMAPS)).toBeUndefined();
    // Only the parent informer is left.
    expect(rc.watchManager.activeWatchCount()).toBe(1);
    expect(reconciler.failures).toEqual([]);
  });
});
