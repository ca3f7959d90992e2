import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WatchEvent } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { sameVersions } from './cachedVersions.js';
import { childName, CountingReconciler } from './CountingReconciler.js';
import { defineCrd } from './crdLifecycle.js';
import { E2eCluster } from './E2eCluster.js';
import { CONFIGMAPS, WIDGETS } from './kinds.js';
import { startRealController, type RealController } from './startRealController.js';

const CONVERGE = { timeoutMs: 30_000, intervalMs: 100 };

let api: KubeApiServer;
let cluster: E2eCluster;
let rc: RealController;
let reconciler: CountingReconciler;

async function statusSettles(name: string, count: number): Promise<void> {
  await waitFor(
    async () => {
      const obj = await cluster.instance(WIDGETS, name);
      return obj?.status?.count === count && obj.status.observedGeneration === obj.metadata.generation;
    },
    { ...CONVERGE, message: `${name} to report count=${count} for its generation` },
  );
}

async function childMessage(instance: string): Promise<string | undefined> {
  return (await cluster.configMap(childName(instance)))?.data?.['message'];
}

beforeAll(async () => {
  // With the default grace period of 0, kube-apiserver 1.36 ignores SIGTERM while a watch is
  // open (the harness SIGKILLs it after 15 s); a short drain period lets it exit in ~1 s.
  api = await startKubeApiServer();
  cluster = new E2eCluster(api.kubeConfig, 'e2e');
  await cluster.createNamespace();
  await defineCrd(api.kubeConfig, WIDGETS);
  // A reconcile in flight when the server goes down fails until it is back: enough retries to outlast the outage.
  rc = startRealController({ kubeConfig: api.kubeConfig, config: { queueMaxRetries: 100 } });
  reconciler = new CountingReconciler(cluster);
  await rc.controller.register(WIDGETS.gvr, reconciler.handlerFor(WIDGETS));
});

afterAll(async () => {
  await rc?.stop();
  await api?.stop();
});

describe('a kube-apiserver restarted under a running controller', () => {
  it('converges by itself afterwards: every change made right after the restart is reflected, none lost', async () => {
    for (const name of ['r1', 'r2', 'r3']) {
      await cluster.createInstance(WIDGETS, name, `${name}-before`);
      await cluster.createConfigMap(`${name}-m1`, { app: name });
    }
    for (const name of ['r1', 'r2', 'r3']) await statusSettles(name, 1);
    const informers = [rc.watchManager.getInformer(WIDGETS.gvr), rc.watchManager.getInformer(CONFIGMAPS)];
    // Every event so far delivered, so the recorder sees only what follows.
    await waitFor(
      async () =>
        sameVersions(informers[0]!, 'e2e', await cluster.listInstances(WIDGETS)) &&
        sameVersions(informers[1]!, 'e2e', await cluster.listConfigMaps()),
      { ...CONVERGE, message: 'both informers to catch up with the server' },
    );
    const events: WatchEvent[] = [];
    rc.onEvent((e) => void events.push(e));
    const errorsBefore = [rc.source.errorsFor(WIDGETS.gvr).length, rc.source.errorsFor(CONFIGMAPS).length];
    const r2Child = await cluster.configMap(childName('r2'));

    await api.restart();
    // Nothing changed while the server was down: whatever the informers re-listed, they told nobody.
    expect(events).toEqual([]);

    // Written at once, while the informers may still be reconnecting.
    await cluster.setMessage(WIDGETS, 'r1', 'r1-after');
    await cluster.createConfigMap('r1-m2', { app: 'r1' });
    await cluster.deleteConfigMap(childName('r2'));
    await cluster.labelConfigMap('r2-m1', { app: 'r3' });
    await cluster.createInstance(WIDGETS, 'r4', 'r4-new');
    await cluster.createConfigMap('r4-m1', { app: 'r4' });

    await statusSettles('r1', 2);
    await statusSettles('r2', 0);
    await statusSettles('r3', 2);
    await statusSettles('r4', 1);
    expect(await childMessage('r1')).toBe('r1-after');
    expect(await childMessage('r4')).toBe('r4-new');
    await waitFor(
      async () => {
        const now = await cluster.configMap(childName('r2'));
        return now !== undefined && now.metadata?.uid !== r2Child?.metadata?.uid;
      },
      { ...CONVERGE, message: "r2's deleted child ConfigMap to be recreated" },
    );

    // Both informers noticed the outage and healed themselves: same objects, none rebuilt.
    expect(rc.source.errorsFor(WIDGETS.gvr).length).toBeGreaterThan(errorsBefore[0]!);
    expect(rc.source.errorsFor(CONFIGMAPS).length).toBeGreaterThan(errorsBefore[1]!);
    expect([rc.watchManager.getInformer(WIDGETS.gvr), rc.watchManager.getInformer(CONFIGMAPS)]).toEqual(informers);
    expect(rc.source.createdFor(WIDGETS.gvr)).toBe(1);
    expect(rc.source.createdFor(CONFIGMAPS)).toBe(1);
  });
});
