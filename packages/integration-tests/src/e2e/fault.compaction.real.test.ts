import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gvrKey, type WatchEvent } from '@protean/core';
import { KubernetesRequestError } from '@protean/watch-manager';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { cachedVersions, listedVersions, sameVersions } from './cachedVersions.js';
import { CountingReconciler } from './CountingReconciler.js';
import { defineCrd } from './crdLifecycle.js';
import { E2eCluster } from './E2eCluster.js';
import { CONFIGMAPS, WIDGETS } from './kinds.js';
import { startRealController, type RealController } from './startRealController.js';
import { TcpGate } from './TcpGate.js';

const CONVERGE = { timeoutMs: 30_000, intervalMs: 100 };

let api: KubeApiServer;
let gate: TcpGate;
let cluster: E2eCluster;
let rc: RealController;
let reconciler: CountingReconciler;

async function statusSettles(name: string, count: number): Promise<void> {
  await waitFor(
    async () => {
      const obj = await cluster.instance(WIDGETS, name);
      return obj?.status?.count === count && obj.status.observedGeneration === obj.metadata.generation;
    },
    { ...CONVERGE, message: `${name} to report count=${count}` },
  );
}

const expired = (e: Error): boolean => e instanceof KubernetesRequestError && e.expired;

beforeAll(async () => {
  // Without the watch cache a watch from a compacted resourceVersion gets 410 at once.
  api = await startKubeApiServer({ watchCache: false });
  cluster = new E2eCluster(api.kubeConfig, 'e2e');
  await cluster.createNamespace();
  await defineCrd(api.kubeConfig, WIDGETS);
  // The informers reach the server through a gate the test can close; handlers go direct.
  gate = await TcpGate.start(api.url);
  rc = startRealController({ kubeConfig: gate.kubeConfigThrough(api.kubeConfig) });
  reconciler = new CountingReconciler(cluster);
  await rc.controller.register(WIDGETS.gvr, reconciler.handlerFor(WIDGETS));
});

afterAll(async () => {
  await rc?.stop();
  await gate?.stop();
  await api?.stop();
});

describe('an informer whose resourceVersion was compacted away while it was disconnected', () => {
  it('relists on 410, delivers tombstones for objects deleted meanwhile, and the controller converges', async () => {
    await cluster.createInstance(WIDGETS, 'one', 'x');
    await cluster.createInstance(WIDGETS, 'two', 'y');
    for (const name of ['one-m1', 'one-m2', 'one-m3']) await cluster.createConfigMap(name, { app: 'one' });
    await cluster.createConfigMap('two-m1', { app: 'two' });
    await statusSettles('one', 3);
    await statusSettles('two', 1);
    const informer = rc.watchManager.getInformer(CONFIGMAPS)!;
    // Every ConfigMap event so far delivered, so the recorder sees only what follows.
    await waitFor(async () => sameVersions(informer, 'e2e', await cluster.listConfigMaps()), {
      ...CONVERGE,
      message: 'the ConfigMap informer to catch up with the server',
    });
    const events: WatchEvent[] = [];
    rc.onEvent((e) => void (gvrKey(e.gvr) === gvrKey(CONFIGMAPS) && events.push(e)));
    const of = (type: string, name?: string): WatchEvent[] =>
      events.filter((e) => e.type === type && (name === undefined || e.name === name));

    const errorsBefore = rc.source.errorsFor(CONFIGMAPS).length;
    gate.close();
    await waitFor(() => rc.source.errorsFor(CONFIGMAPS).length > errorsBefore, { ...CONVERGE, message: 'the ConfigMap watch to break' });
    // Written while the informers cannot see them, then compacted out of etcd's history.
    await cluster.deleteConfigMap('one-m1');
    await cluster.deleteConfigMap('one-m2');
    await cluster.labelConfigMap('two-m1', { app: 'one' });
    await cluster.createConfigMap('two-m2', { app: 'two' });
    await cluster.createConfigMap('two-m3', { app: 'two' });
    await api.compact();
    // The informer has not seen any of it.
    expect(informer.get({ namespace: 'e2e', name: 'one-m1' })).toBeDefined();
    expect(events).toEqual([]);

    gate.open();
    await statusSettles('one', 2);
    await statusSettles('two', 2);

    expect(rc.source.errorsFor(CONFIGMAPS).slice(errorsBefore).some(expired)).toBe(true);
    // Found by the relist: one delete each, with the last labels the informer knew.
    for (const name of ['one-m1', 'one-m2']) {
      const [deleted, ...more] = of('delete', name);
      expect(more).toEqual([]);
      expect(deleted?.labels).toEqual({ app: 'one' });
    }
    expect(of('add').map((e) => [e.name, e.initialList === true])).toEqual(
      expect.arrayContaining([
        ['two-m2', false],
        ['two-m3', false],
      ]),
    );
    const [moved] = of('update', 'two-m1');
    expect(moved?.oldLabels).toEqual({ app: 'two' });
    expect(moved?.labels).toEqual({ app: 'one' });

    // The cache is the server's state, resourceVersions included.
    expect(cachedVersions(informer, 'e2e')).toEqual(listedVersions(await cluster.listConfigMaps()));
    expect(rc.source.createdFor(CONFIGMAPS)).toBe(1);
    expect(reconciler.failures).toEqual([]);
  });
});
