import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeClient, type KubeObject } from '@protean/client';
import { ReconcileTimeoutError, type GroupVersionResource } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { createTestController, FakeClock, LogRecorder, ObserverRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const LIMIT_MS = 1_000;

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

describe('DynamicController reconcileTimeoutMs with @protean/client', () => {
  let t: TestController | undefined;
  let server: InMemoryApiServer | undefined;
  let client: KubeClient | undefined;

  afterEach(async () => {
    server?.faults.stall(false);
    await t?.dispose();
    client?.close();
    await server?.stop();
  });

  it('aborts a request hung on a stalled API server at the limit, and the retry succeeds', async () => {
    server = await InMemoryApiServer.start();
    server.create(configmaps, { metadata: { name: 'settings', namespace: 'ns' }, data: { k: 'v' } });
    client = new KubeClient({ kubeConfig: server.kubeConfig(), retry: { retries: 0 } });
    const kube = client;
    const clock = new FakeClock();
    const observer = new ObserverRecorder();
    const logs = new LogRecorder('error');
    t = createTestController({
      clock,
      observer,
      logger: logs.logger,
      config: { reconcileTimeoutMs: LIMIT_MS, minRetryDelayMs: 100, maxRetryDelayMs: 10_000 },
    });
    const read: string[] = [];
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    await t.start();
    server.faults.stall(true); // the first pass's request is accepted and never answered
    await t.register(parent, async (_req, ctx) => {
      const cm = await kube.get<ConfigMap>(configmaps, { namespace: 'ns', name: 'settings' }, { signal: ctx.signal });
      read.push(cm.data?.['k'] ?? '');
    });
    await t.waitFor(() => server!.requests().some((r) => r.path === '/api/v1/namespaces/ns/configmaps/settings'));
    await clock.advanceAsync(LIMIT_MS);
    await t.waitFor(() => observer.outcomes().length === 1);
    server.faults.stall(false);
    expect(observer.outcomes()).toEqual(['error']);
    expect(observer.handlerErrors[0]?.err).toBeInstanceOf(ReconcileTimeoutError);
    expect(logs.find(`ns/a exceeded reconcileTimeoutMs=${LIMIT_MS}`)).toHaveLength(1);
    await clock.advanceAsync(100); // the backoff
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['error', 'success']);
    expect(read).toEqual(['v']);
  });
});
