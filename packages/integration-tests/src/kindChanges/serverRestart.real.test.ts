import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Handler } from '@protean/core';
import { LogRecorder, waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { KubeConnectionPool } from '@protean/transport';
import { E2eCluster } from '../e2e/E2eCluster.js';
import { CONFIGMAPS } from '../e2e/kinds.js';
import { startRealController, type RealController } from '../e2e/startRealController.js';

/*
 * kube-apiserver killed (SIGKILL) and started again under a running controller whose informers back off as in
 * production (800 ms doubling to 30 s): the first event after each restart reaches the handler, five times over, and
 * the informers were woken by /readyz answering (the readiness probe's line), not only by their backoff; how long
 * after /readyz answered is printed with KIND_CHANGES_PRINT=1 (11-52 ms in the runs of this change). The parent kind is a built-in one (ConfigMaps): a CRD-backed kind's
 * storage is initialized again after /readyz answers ok, and until then kube-apiserver answers its watches 429
 * "storage is (re)initializing" with a Retry-After of 1 s, which the informers honour.
 */

const RESTARTS = 5;

let api: KubeApiServer;
let cluster: E2eCluster;
let rc: RealController;
const passes = new Map<string, number>();
const logs = new LogRecorder('info');

beforeAll(async () => {
  api = await startKubeApiServer();
  cluster = new E2eCluster(api.kubeConfig, 'restarts');
  await cluster.createNamespace();
  rc = startRealController({
    kubeConfig: api.kubeConfig,
    logger: logs.logger,
    informer: { backoff: { initialMs: 800, maxMs: 30_000 } },
    config: { queueMaxRetries: 100 },
  });
  const handler: Handler = async (req) => {
    if (!passes.has(req.name)) passes.set(req.name, Date.now());
  };
  await rc.controller.register(CONFIGMAPS, handler);
});

afterAll(async () => {
  await rc?.stop();
  await api?.stop();
});

/** Polls /readyz every 5 ms on a pool of its own; resolves with the moment it first answers ok after it was seen down. */
async function firstReady(pool: KubeConnectionPool): Promise<number> {
  let down = false;
  for (let deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const ok = await pool
      .send({ method: 'GET', path: '/readyz', headers: { accept: 'text/plain' }, signal: AbortSignal.timeout(1000) })
      .then(
        (res) => res.status === 200 && res.body.trim() === 'ok',
        () => false,
      );
    if (ok && down) return Date.now();
    if (!ok) down = true;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('kube-apiserver did not answer /readyz within 60 s of its restart');
}

describe('a kube-apiserver killed and started again', () => {
  it('is heard again after each restart, its informers woken by /readyz answering: the first event reaches the handler, over 5 restarts', async () => {
    await cluster.createConfigMap('before', {});
    await waitFor(() => passes.has('before'), { timeoutMs: 30_000 });
    const delays: number[] = [];
    for (let i = 0; i < RESTARTS; i++) {
      const pool = new KubeConnectionPool(api.kubeConfig);
      const restarting = api.restart({ kill: true });
      const readyAt = await firstReady(pool);
      const name = `after-${i}`;
      await cluster.createConfigMap(name, {});
      await waitFor(() => passes.has(name), { timeoutMs: 30_000, intervalMs: 5, message: `the pass of ${name}` });
      delays.push(passes.get(name)! - readyAt);
      await restarting;
      pool.close();
    }
    if (process.env['KIND_CHANGES_PRINT'] === '1') console.log({ readyToHandlerMs: delays });
    expect(delays).toHaveLength(RESTARTS);
    // The informers waited for the server and were woken when /readyz answered ready.
    expect(logs.find('the API server is ready again').length).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
