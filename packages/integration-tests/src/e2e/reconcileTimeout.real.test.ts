import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import { ReconcileTimeoutError, TOKENS } from '@protean/core';
import { LogRecorder, ObserverRecorder, waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { defineCrd } from './crdLifecycle.js';
import { E2eCluster } from './E2eCluster.js';
import { WIDGETS } from './kinds.js';
import { startRealController, type RealController } from './startRealController.js';

const LIMIT_MS = 1_500;
const CONVERGE = { timeoutMs: 30_000, intervalMs: 50 };

let api: KubeApiServer;
let cluster: E2eCluster;
let rc: RealController;
let client: KubeClient;
const observer = new ObserverRecorder();
const logs = new LogRecorder('error');

beforeAll(async () => {
  api = await startKubeApiServer();
  cluster = new E2eCluster(api.kubeConfig, 'timeout');
  await cluster.createNamespace();
  await defineCrd(api.kubeConfig, WIDGETS);
  client = new KubeClient({ kubeConfig: api.kubeConfig, fieldManager: 'timeout-test' });
  rc = startRealController({
    kubeConfig: api.kubeConfig,
    logger: logs.logger,
    config: { reconcileTimeoutMs: LIMIT_MS, minRetryDelayMs: 50, maxRetryDelayMs: 1_000 },
    configure: (container) => container.rebind(TOKENS.controllerObserver).toConstantValue(observer),
  });
});

afterAll(async () => {
  await rc?.stop();
  client?.close();
  await api?.stop();
});

describe('reconcileTimeoutMs on a real kube-apiserver', () => {
  it('aborts a hung handler at the limit, logs it naming the instance, and the retry succeeds', async () => {
    await cluster.createInstance(WIDGETS, 'slow', 'hello');
    const passes: string[] = [];
    await rc.controller.register(WIDGETS.gvr, async (req, ctx) => {
      passes.push(req.name);
      const obj = await client.get(WIDGETS.gvr, req, { signal: ctx.signal });
      if (passes.length === 1) {
        // Hangs as a stuck call would, until its signal aborts.
        await new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
      }
      await client.patchStatus(WIDGETS.gvr, req, { count: 0, observedGeneration: obj.metadata.generation }, { signal: ctx.signal });
    });

    await waitFor(async () => (await cluster.instance(WIDGETS, 'slow'))?.status?.observedGeneration === 1, {
      ...CONVERGE,
      message: 'the retried pass to write the status',
    });
    // The status is on the server before the pass that wrote it has returned: wait for its outcome too.
    await waitFor(() => observer.outcomes().length >= 2, { ...CONVERGE, message: 'the retried pass to end' });
    expect(observer.outcomes().slice(0, 2)).toEqual(['error', 'success']);
    expect(observer.handlerErrors[0]?.err).toBeInstanceOf(ReconcileTimeoutError);
    expect(logs.find(`timeout/slow exceeded reconcileTimeoutMs=${LIMIT_MS}`)).toHaveLength(1);
    expect(passes).toEqual(['slow', 'slow']);
  });
});
