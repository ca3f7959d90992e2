// The deregister/re-register scenario, run on the in-memory API server
// (passesAcrossRegistrations.test.ts) and on kube-apiserver
// (passesAcrossRegistrations.real.test.ts): 25 passes cut off by
// deregister, then a fresh registration whose first pass fails once.
import { expect } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@protean/client';
import { TOKENS, type GroupVersionResource, type Handler } from '@protean/core';
import { LogRecorder, ObserverRecorder, waitFor } from '@protean/core/testing';
import { startRealController } from '../e2e/startRealController.js';

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const ROUNDS = 25;
const WAIT = { timeoutMs: 15_000, intervalMs: 5 };

/**
 * Registers ConfigMaps as a parent 25 times, each time cutting off the pass
 * of `namespace/name` by deregistering while its handler awaits
 * `ctx.signal`; then registers a handler that fails that pass once, and
 * asserts the failure is retried (not dropped after `queueMaxRetries`=20),
 * that no cut-off pass was retried, counted as a handler error or logged
 * above info.
 */
export async function cutOffAcrossRegistrations(kubeConfig: KubeConfig, namespace: string, name: string): Promise<void> {
  const client = new KubeClient({ kubeConfig, fieldManager: 'passes-test' });
  const observer = new ObserverRecorder();
  const logs = new LogRecorder('info');
  const rc = startRealController({
    kubeConfig,
    logger: logs.logger,
    config: { queueMaxRetries: 20, minRetryDelayMs: 20, maxRetryDelayMs: 200 },
    configure: (container) => container.rebind(TOKENS.controllerObserver).toConstantValue(observer),
  });
  const ours = (req: { namespace: string; name: string }): boolean => req.namespace === namespace && req.name === name;
  try {
    await client.create(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { k: 'v' } });
    let started = 0;
    const untilCutOff: Handler = (req, ctx) => {
      if (!ours(req)) return Promise.resolve();
      started++;
      return new Promise<void>((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
      );
    };
    const cancelled = (): number => observer.outcomes().filter((o) => o === 'cancelled').length;
    for (let round = 1; round <= ROUNDS; round++) {
      await rc.controller.register(CONFIGMAPS, untilCutOff);
      await waitFor(() => started === round, { ...WAIT, message: `pass ${round} to start` });
      await rc.controller.deregister(CONFIGMAPS);
      await waitFor(() => cancelled() === round, { ...WAIT, message: `pass ${round} to be cut off` });
    }

    let calls = 0;
    await rc.controller.register(CONFIGMAPS, (req) => {
      if (!ours(req)) return Promise.resolve();
      return ++calls === 1 ? Promise.reject(new Error('transient failure')) : Promise.resolve();
    });
    await waitFor(() => calls === 2 && observer.outcomes().at(-1) !== undefined, { ...WAIT, message: 'the failed pass to be retried' });
    await waitFor(() => rc.controller.queueStatus().inFlight.length === 0, WAIT);

    expect(cancelled()).toBe(ROUNDS);
    expect(observer.handlerErrors.map((e) => (e.err as Error).message)).toEqual(['transient failure']);
    expect(logs.find('dropping')).toEqual([]);
    expect(logs.find('cut off (its parent GVR was deregistered')).toHaveLength(ROUNDS);
    expect(logs.errors().map((r) => r.msg)).toEqual(['handler failed; retrying with backoff: Error: transient failure']);
    expect(logs.records.filter((r) => r.level === 40)).toEqual([]);
  } finally {
    await rc.stop();
    await client.delete(CONFIGMAPS, { namespace, name }).catch(() => undefined);
    client.close();
  }
}
