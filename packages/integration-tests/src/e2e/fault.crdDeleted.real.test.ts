import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiStatusOf, gvrKey } from '@protean/core';
import { LogRecorder } from '@protean/core/testing';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { CountingReconciler } from './CountingReconciler.js';
import { defineCrd, deleteCrd } from './crdLifecycle.js';
import { E2eCluster } from './E2eCluster.js';
import { WIDGETS } from './kinds.js';
import { startRealController, type RealController } from './startRealController.js';

const CONVERGE = { timeoutMs: 30_000, intervalMs: 100 };
/** How long the informer's requests are counted while the resource is gone. */
const OUTAGE_WINDOW_MS = 10_000;
const WARN = 40;

let api: KubeApiServer;
let cluster: E2eCluster;
let rc: RealController;
let reconciler: CountingReconciler;
const logs = new LogRecorder('info');

const statusOf = (e: Error): number | undefined => apiStatusOf(e)?.code;

async function statusSettles(name: string, count: number): Promise<void> {
  await waitFor(
    async () => {
      const obj = await cluster.instance(WIDGETS, name);
      return obj?.status?.count === count && obj.status.observedGeneration === obj.metadata.generation;
    },
    { ...CONVERGE, message: `${name} to report count=${count}` },
  );
}

beforeAll(async () => {
  api = await startKubeApiServer();
  cluster = new E2eCluster(api.kubeConfig, 'e2e');
  await cluster.createNamespace();
  await defineCrd(api.kubeConfig, WIDGETS);
  // 500 ms doubling to 4 s while the resource is not served: a handful of requests per window.
  rc = startRealController({
    kubeConfig: api.kubeConfig,
    logger: logs.logger,
    informer: { backoff: { initialMs: 500, maxMs: 1_000 }, notServedMaxBackoffMs: 4_000 },
  });
  reconciler = new CountingReconciler(cluster);
  await rc.controller.register(WIDGETS.gvr, reconciler.handlerFor(WIDGETS));
});

afterAll(async () => {
  await rc?.stop();
  await api?.stop();
});

describe('a watched parent GVR whose CRD is deleted', () => {
  it('backs off without a hot loop, warns once, and recovers on the same informer when the CRD comes back', async () => {
    const key = gvrKey(WIDGETS.gvr);
    await cluster.createInstance(WIDGETS, 'before', 'x');
    await cluster.createConfigMap('before-m1', { app: 'before' });
    await statusSettles('before', 1);
    const errorsBefore = rc.source.errorsFor(WIDGETS.gvr).length;
    logs.clear();

    await deleteCrd(api.kubeConfig, WIDGETS);
    await waitFor(
      () =>
        rc.source
          .errorsFor(WIDGETS.gvr)
          .slice(errorsBefore)
          .some((e) => statusOf(e) === 404),
      {
        ...CONVERGE,
        message: 'the informer to meet a 404 once the CRD is gone',
      },
    );
    const firstFailure = rc.source.errorsFor(WIDGETS.gvr).length;
    // Not a synchronisation wait: a fixed window in which to count what the informer sends.
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_WINDOW_MS));
    const inWindow = rc.source.errorsFor(WIDGETS.gvr).slice(firstFailure);

    expect(inWindow.length).toBeGreaterThanOrEqual(1); // still retrying
    expect(inWindow.length).toBeLessThanOrEqual(10); // but not in a hot loop
    expect(inWindow.every((e) => statusOf(e) === 404)).toBe(true);
    const warns = logs.records.filter((r) => r.level === WARN);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({ gvr: key, status: 404 });

    await defineCrd(api.kubeConfig, WIDGETS);
    await cluster.createInstance(WIDGETS, 'after', 'y');
    await cluster.createConfigMap('after-m1', { app: 'after' });
    await statusSettles('after', 1);

    expect(logs.find('list/watch recovered').filter((r) => r.gvr === key)).toHaveLength(1);
    expect(logs.records.filter((r) => r.level === WARN)).toHaveLength(1);
    // The informer healed itself: the watch manager never built a second one.
    expect(rc.source.createdFor(WIDGETS.gvr)).toBe(1);
    expect(rc.controller.hasSynced(WIDGETS.gvr)).toBe(true);
    // The instance deleted with its CRD is reconciled as gone and leaves the coordinator.
    await waitFor(() => rc.watchCoordinator.watchRequestCount().scalar === 1, {
      ...CONVERGE,
      message: "only the new instance's requests to remain",
    });
    expect(rc.watchCoordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 1 });
    expect(reconciler.failures).toEqual([]);
  });
});
