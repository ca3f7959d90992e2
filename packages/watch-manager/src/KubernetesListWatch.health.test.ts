import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { FakeClock, waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { KubeTestInformer } from './kubeInformer.testkit.js';
import { KubernetesListWatch } from './KubernetesListWatch.js';
import type { KubernetesInformerOptions } from './KubernetesInformerOptions.js';

/*
 * The health of a KubernetesListWatch under the informer engine, against the in-memory API server, on a fake
 * clock: the ages it reports move only when the test advances the clock.
 */

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const BACKOFF_MS = 1_000;
const SHORT_WATCH_MS = 1_000;

let server: InMemoryApiServer;
let clock: FakeClock;
const aborts: AbortController[] = [];

beforeEach(async () => {
  clock = new FakeClock();
  server = await InMemoryApiServer.start({ clock: new FakeClock() });
});

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await server.stop();
});

function run(options: Partial<KubernetesInformerOptions> = {}): { informer: KubeTestInformer; errors: Error[] } {
  const listWatch = new KubernetesListWatch(CONFIGMAPS, {
    kubeConfig: server.kubeConfig(),
    clock,
    backoff: { initialMs: BACKOFF_MS, maxMs: 8 * BACKOFF_MS, jitter: 0 },
    shortWatchMs: SHORT_WATCH_MS,
    streamingList: 'auto',
    ...options,
  });
  const informer = new KubeTestInformer(listWatch, {}, { clock });
  const errors = informer.errors;
  const abort = new AbortController();
  aborts.push(abort);
  informer.run(abort.signal);
  return { informer, errors };
}

const isWatch = (r: { query: URLSearchParams }): boolean => r.query.get('watch') === 'true';
const watchCount = (): number => server.requests().filter(isWatch).length;

describe('KubernetesListWatch: health', () => {
  it('reports nothing heard and not synced before the first answer, then synced and idle since the last byte', async () => {
    server.faults.stall(true);
    const { informer } = run();
    await waitFor(() => server.requests().length === 1);
    expect(informer.health()).toEqual({ synced: false, idleMs: undefined, relists: 0, failing: undefined, listMode: 'streaming' });
    server.faults.stall(false);
    await waitFor(() => informer.hasSynced() && server.openWatchCount() === 1);
    expect(informer.health()).toEqual({ synced: true, idleMs: 0, relists: 0, failing: undefined, listMode: 'streaming' });

    clock.advance(5_000);
    expect(informer.health().idleMs).toBe(5_000);
    server.create(CONFIGMAPS, { metadata: { name: 'x', namespace: 'default' } });
    await waitFor(() => informer.get({ namespace: 'default', name: 'x' }) !== undefined);
    expect(informer.health().idleMs).toBe(0);
  });

  it('reports an outage: since its first failure, failures in a row, the last cause and the time to the next attempt; a relist ends it', async () => {
    const { informer, errors } = run();
    await waitFor(() => informer.hasSynced() && server.openWatchCount() === 1);
    server.faults.failNext(2, 500, { match: isWatch });
    server.faults.closeWatches();
    await waitFor(() => errors.length === 1);
    expect(informer.health().failing).toEqual({
      forMs: 0,
      consecutive: 1,
      cause: errors[0]!.message,
      status: 500,
      reason: 'InternalError',
      retryInMs: BACKOFF_MS,
    });
    clock.advance(400);
    expect(informer.health().failing).toMatchObject({ forMs: 400, retryInMs: BACKOFF_MS - 400 });

    clock.advance(BACKOFF_MS - 400);
    await waitFor(() => errors.length === 2);
    expect(informer.health()).toMatchObject({ synced: true, failing: { forMs: BACKOFF_MS, consecutive: 2, retryInMs: 2 * BACKOFF_MS } });

    clock.advance(2 * BACKOFF_MS);
    await waitFor(() => informer.health().failing === undefined && server.openWatchCount() === 1);
    expect(informer.health()).toMatchObject({ synced: true, relists: 1 });
  });

  it('stays failing while the watch is forbidden and the list allowed, naming watch and the resource; relists do not end it, a watch does', async () => {
    const { informer, errors } = run({ streamingList: 'never' });
    await waitFor(() => informer.hasSynced() && server.openWatchCount() === 1);
    server.faults.failNext(2, 403, { match: isWatch });
    server.faults.closeWatches();
    // A watch that ended without an event is paced (a short watch) before the next one.
    await waitFor(() => informer.health().failing?.reason === 'ShortWatch');
    clock.advance(BACKOFF_MS);
    await waitFor(() => errors.length === 1);
    const failing = informer.health().failing!;
    expect(failing).toMatchObject({ status: 403, reason: 'Forbidden', consecutive: 2 }); // after the short watch
    expect(failing.cause).toBe(
      `forbidden to watch configmaps (group "", version v1) at the cluster scope: the API server at ${server.url} answered 403: forbidden; waiting for RBAC to grant "watch"`,
    );

    const lists = (): number => server.requests().filter((r) => !isWatch(r)).length;
    const listed = lists();
    clock.advance(BACKOFF_MS);
    await waitFor(() => errors.length === 2);
    expect(lists()).toBe(listed + 1); // the cache is refreshed by a list...
    expect(informer.health().failing).toMatchObject({ status: 403, consecutive: 3 }); // ...which does not end the outage

    clock.advance(2 * BACKOFF_MS);
    await waitFor(() => server.openWatchCount() === 1);
    expect(informer.health().failing).toMatchObject({ status: 403 }); // a watch just opened: not over yet
    // Once the client has read the watch's answer, a watch open for SHORT_WATCH_MS ends the outage.
    await waitFor(() => {
      clock.advance(SHORT_WATCH_MS);
      return informer.health().failing === undefined;
    });
  });

  it('keeps a flapping watch (ended at once, without an event) one outage, and ends it once a watch stays open', async () => {
    const { informer } = run();
    await waitFor(() => informer.hasSynced() && server.openWatchCount() === 1);
    // The streaming list delivered lines: closing it re-watches at once. The plain watch after it has none.
    server.faults.closeWatches();
    await waitFor(() => watchCount() === 2 && server.openWatchCount() === 1);
    expect(informer.health().failing).toBeUndefined();
    server.faults.closeWatches();
    await waitFor(() => informer.health().failing !== undefined);
    expect(informer.health().failing).toMatchObject({ consecutive: 1, reason: 'ShortWatch', retryInMs: BACKOFF_MS });

    clock.advance(BACKOFF_MS);
    await waitFor(() => watchCount() === 3 && server.openWatchCount() === 1);
    server.faults.closeWatches();
    await waitFor(() => informer.health().failing?.consecutive === 2);
    expect(informer.health().failing).toMatchObject({ forMs: BACKOFF_MS, reason: 'ShortWatch' });

    clock.advance(2 * BACKOFF_MS);
    // idleMs 0: the informer has read the new watch's response.
    await waitFor(() => watchCount() === 4 && server.openWatchCount() === 1 && informer.health().idleMs === 0);
    // Open but silent, not yet for shortWatchMs: still the outage.
    expect(informer.health().failing).toMatchObject({ consecutive: 2, retryInMs: undefined });
    clock.advance(SHORT_WATCH_MS);
    expect(informer.health().failing).toBeUndefined();
    expect(informer.health().relists).toBe(0);
  });
});
