import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import type { GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { KubeConnectionPool, KubeTransportError } from '@protean/transport';
import { KubernetesInformerSource, KubernetesRequestError, runInformer, type Informer } from '@protean/watch-manager';
import { SilentRelay } from './SilentRelay.js';

const KINDS: GroupVersionResource[] = ['configmaps', 'secrets', 'serviceaccounts', 'services', 'endpoints'].map((resource) => ({
  group: '',
  version: 'v1',
  resource,
}));

let api: KubeApiServer;
let relay: SilentRelay;
let admin: KubeConnectionPool;
const abort = new AbortController();

beforeAll(async () => {
  api = await startKubeApiServer();
  relay = await SilentRelay.start(api.url);
  admin = new KubeConnectionPool(api.kubeConfig);
});

afterAll(async () => {
  abort.abort();
  admin?.close();
  await relay?.stop();
  await api?.stop();
});

describe('a shared connection that goes silent (real kube-apiserver)', () => {
  it('is found by PING, every watch on it breaks with ConnectionReset, and every informer watches again on a new connection', async () => {
    const direct = api.kubeConfig;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: direct.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${relay.port}` })),
      users: direct.users,
      contexts: direct.contexts,
      currentContext: direct.getCurrentContext(),
    });
    // Short PING timings so the test takes seconds; the watchdog stays far away, so only the PING can notice.
    const pool = new KubeConnectionPool(kubeConfig, { readIdleTimeoutMs: 1000, pingTimeoutMs: 1000 });
    const source = new KubernetesInformerSource({
      kubeConfig,
      connectionPool: pool,
      inactivityTimeoutMs: 600_000,
      // Streaming lists: each watch's response is open when the silence starts, so each breaks as ConnectionReset
      // (a paged informer's watch that has not had its response headers yet fails as NetworkError instead).
      streamingList: 'auto',
      backoff: { initialMs: 100, maxMs: 1000, jitter: 0 },
    });
    const errors: Error[] = [];
    const informers: Informer[] = KINDS.map((gvr) =>
      runInformer(source.createListWatch(gvr), { onError: (err) => void errors.push(err) }, abort.signal),
    );
    try {
      await waitFor(() => informers.every((i) => i.hasSynced()), { timeoutMs: 30_000, message: 'every informer to sync' });
      // Five core kinds over the pool's two connections (each kind on one, by its path): both carry watches.
      const sessions = pool.stats().http2Sessions;
      expect(sessions).toBe(2);
      expect(pool.stats()).toMatchObject({ connectionsOpened: sessions });
      expect(pool.stats().activeStreams).toBeGreaterThanOrEqual(KINDS.length);

      expect(relay.blackhole()).toBe(sessions);
      await waitFor(
        () => errors.filter((e) => e instanceof KubernetesRequestError && e.reason === 'ConnectionReset').length >= KINDS.length,
        {
          timeoutMs: 30_000,
          intervalMs: 50,
          message: 'every watch to break with ConnectionReset',
        },
      );
      const resets = errors.filter(
        (e): e is KubernetesRequestError => e instanceof KubernetesRequestError && e.reason === 'ConnectionReset',
      );
      for (const e of resets) {
        expect(e.cause).toBeInstanceOf(KubeTransportError);
        expect((e.cause as Error).message).toMatch(/no answer to an HTTP\/2 PING within 1000 ms/);
      }

      const res = await admin.send({
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ metadata: { name: 'after-the-silence' } }),
      });
      expect(res.status).toBe(201);
      const configMaps = informers[0]!;
      await waitFor(() => configMaps.get({ namespace: 'default', name: 'after-the-silence' }) !== undefined, {
        timeoutMs: 30_000,
        message: 'the ConfigMap informer to see a change made after the silence',
      });
      await waitFor(() => pool.stats().activeStreams >= KINDS.length && informers.every((i) => i.health().failing === undefined), {
        timeoutMs: 30_000,
        intervalMs: 50,
        message: 'every informer to watch again',
      });
      expect(pool.stats()).toMatchObject({ http2Sessions: sessions, connectionsOpened: 2 * sessions });
    } finally {
      pool.close();
    }
  });
});
