import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { sharedConnectionPool, type KubeConnectionPool } from '@protean/transport';
import { KubernetesInformerSource, runInformer, type Informer } from '@protean/watch-manager';
import { tcpConnectionsTo } from './tcpConnectionsTo.js';

/** How many CRDs, each watched by its own informer. */
const GVRS = 200;
const GROUP = 'fleet.protean.dev';
/** At most this many CRD requests in flight while setting up (the server on 2 cores builds OpenAPI for each). */
const SETUP_CONCURRENCY = 25;

let api: KubeApiServer;
let kubeConfig: KubeConfig;
let pool: KubeConnectionPool;
let port: number;
const abort = new AbortController();
const gvrs: GroupVersionResource[] = Array.from({ length: GVRS }, (_, i) => ({ group: GROUP, version: 'v1', resource: `probes${i}` }));
let informers: Informer[] = [];

/** Runs `fn` over `items`, `limit` at a time. */
async function inBatches<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: string }> {
  const res = await pool.send({
    method,
    path,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res;
}

function crd(i: number): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `probes${i}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Cluster',
      names: { kind: `Probe${i}`, plural: `probes${i}`, singular: `probe${i}`, listKind: `Probe${i}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

async function createProbe(i: number, name: string): Promise<void> {
  const res = await send('POST', `/apis/${GROUP}/v1/probes${i}`, { apiVersion: `${GROUP}/v1`, kind: `Probe${i}`, metadata: { name } });
  if (res.status !== 201) throw new Error(`creating ${name} of probes${i}: ${res.status} ${res.body.slice(0, 200)}`);
}

/** Every informer's cache holds its object `name`. */
const everySees = (name: string): boolean => informers.every((inf) => inf.get({ namespace: '', name }) !== undefined);

beforeAll(async () => {
  api = await startKubeApiServer();
  kubeConfig = api.kubeConfig; // one object: its pool is shared by the informers and the writes below
  pool = sharedConnectionPool(kubeConfig);
  port = Number(new URL(api.url).port);
  await inBatches(
    gvrs.map((_, i) => i),
    SETUP_CONCURRENCY,
    async (i) => {
      const res = await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(i));
      if (res.status !== 201) throw new Error(`creating CRD probes${i}: ${res.status} ${res.body.slice(0, 200)}`);
    },
  );
  await inBatches(
    gvrs.map((_, i) => i),
    SETUP_CONCURRENCY,
    (i) =>
      waitFor(async () => (await send('GET', `/apis/${GROUP}/v1/probes${i}?limit=1`)).status === 200, {
        timeoutMs: 120_000,
        intervalMs: 200,
        message: `probes${i} to be served`,
      }),
  );
}, 600_000);

afterAll(async () => {
  abort.abort();
  pool?.close();
  await api?.stop();
});

describe(`${GVRS} informers over the shared connection`, () => {
  it('hold one TCP connection to the API server, and all recover after a restart', async () => {
    const source = new KubernetesInformerSource({ kubeConfig, backoff: { initialMs: 200, maxMs: 2000, jitter: 0.2 } });
    const startedMs = Date.now();
    informers = gvrs.map((gvr) => runInformer(source.createListWatch(gvr), {}, abort.signal));
    await waitFor(() => informers.every((inf) => inf.hasSynced()), {
      timeoutMs: 120_000,
      intervalMs: 50,
      message: 'every informer to sync',
    });
    const syncMs = Date.now() - startedMs;
    await inBatches(
      gvrs.map((_, i) => i),
      SETUP_CONCURRENCY,
      (i) => createProbe(i, 'before'),
    );
    await waitFor(() => everySees('before'), { timeoutMs: 60_000, intervalMs: 50, message: 'every informer to see its object' });

    const osBefore = tcpConnectionsTo(port);
    const statsBefore = pool.stats();
    expect(statsBefore.servers).toEqual([expect.objectContaining({ protocol: 'h2' })]);
    // Every watch is a stream of the pool, and the pool holds a handful of connections at most: one per
    // maxConcurrentStreams (kube-apiserver allows 100 per connection), 200 watches plus the writes above.
    expect(statsBefore.activeStreams).toBeGreaterThanOrEqual(GVRS);
    const perSession = statsBefore.servers[0]?.maxConcurrentStreams ?? 100;
    expect(statsBefore.http2Sessions).toBeLessThanOrEqual(Math.ceil((GVRS + SETUP_CONCURRENCY) / perSession));
    expect(osBefore).toBe(statsBefore.connections);
    expect(osBefore).toBeLessThanOrEqual(3);

    const restartStartedMs = Date.now();
    await api.restart();
    const readyMs = Date.now();
    // Written as soon as the server is back, while the informers may still be reconnecting.
    await inBatches(
      gvrs.map((_, i) => i),
      SETUP_CONCURRENCY,
      (i) => createProbe(i, 'after'),
    );
    await waitFor(() => everySees('after'), {
      timeoutMs: 120_000,
      intervalMs: 50,
      message: 'every informer to see the change made after the restart',
    });
    const recoveredMs = Date.now();
    expect(informers.every((inf) => inf.hasSynced() && !inf.isStopped())).toBe(true);
    await waitFor(() => informers.every((inf) => inf.health().failing === undefined), {
      timeoutMs: 60_000,
      intervalMs: 50,
      message: 'every informer to report itself healthy',
    });
    // A paged informer has synced once its LIST is in; its watch opens right after.
    await waitFor(() => pool.stats().activeStreams >= GVRS, { timeoutMs: 30_000, intervalMs: 50, message: 'every watch to be open again' });

    const osAfter = tcpConnectionsTo(port);
    const statsAfter = pool.stats();
    expect(statsAfter.activeStreams).toBeGreaterThanOrEqual(GVRS);
    expect(osAfter).toBe(statsAfter.connections);
    expect(osAfter).toBeLessThanOrEqual(3);

    process.stderr.write(
      `[shared-connection] ${GVRS} informers: initial sync ${syncMs} ms; TCP connections to the API server (OS): ${osBefore} before the restart, ${osAfter} after; ` +
        `pool: ${statsBefore.http2Sessions} h2 session(s) (server maxConcurrentStreams ${statsBefore.servers[0]?.maxConcurrentStreams}) / ${statsBefore.activeStreams} streams before, ${statsAfter.http2Sessions} / ${statsAfter.activeStreams} after, ` +
        `${statsAfter.connectionsOpened} connections opened in all; restart took ${readyMs - restartStartedMs} ms until /readyz, ` +
        `every informer saw the change written after it ${recoveredMs - readyMs} ms later (${recoveredMs - restartStartedMs} ms after the restart began)\n`,
    );
  }, 600_000);
});
