import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { silentLogger, type GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { InformerWatchManager } from './InformerWatchManager.js';
import { DEFAULT_LIST_CONCURRENCY } from './KubernetesInformerOptions.js';
import { KubernetesInformerSource } from './KubernetesInformerSource.js';
import { ListLimiter } from './ListLimiter.js';

/*
 * `listConcurrency`: the informers of one source run at most that many
 * paginated LISTs at once; the rest wait their turn and every informer still
 * syncs and watches. The in-memory server's stall switch parks every request
 * it receives, so the LISTs that reached it while stalled are the ones the
 * cap let through.
 */

const KINDS = 6;
const gvrOf = (i: number): GroupVersionResource => ({ group: 'cap.protean.dev', version: 'v1', resource: `kind${i}s` });
const isList = (r: { path: string; query: URLSearchParams }): boolean =>
  r.path.startsWith('/apis/cap.protean.dev/') && r.query.get('watch') !== 'true';

/** A limiter that remembers the most lists it ever ran at once. */
class PeakLimiter extends ListLimiter {
  peak = 0;

  override run<T>(list: () => Promise<T>): Promise<T> {
    return super.run(() => {
      this.peak = Math.max(this.peak, this.active);
      return list();
    });
  }
}

let server: InMemoryApiServer;
let manager: InformerWatchManager | undefined;

beforeEach(async () => {
  server = await InMemoryApiServer.start();
  for (let i = 0; i < KINDS; i++) {
    server.registerResource({ ...gvrOf(i), kind: `Kind${i}`, namespaced: true });
    for (let j = 0; j < 3; j++) server.create(gvrOf(i), { metadata: { name: `o-${j}`, namespace: 'default' } });
  }
});

afterEach(async () => {
  manager?.shutdown();
  manager = undefined;
  await server.stop();
});

function start(listConcurrency: number | ListLimiter | undefined, kinds = KINDS): Array<Promise<void>> {
  const source = new KubernetesInformerSource({
    kubeConfig: server.kubeConfig(),
    pageSize: 2,
    ...(listConcurrency === undefined ? {} : { listConcurrency }),
  });
  manager = new InformerWatchManager(source, 0, () => {}, silentLogger());
  return Array.from({ length: kinds }, (_, i) => manager!.ensureWatch(gvrOf(i), 'test'));
}

const turns = async (n = 20): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

describe('KubernetesInformerSource listConcurrency', () => {
  it('lets only that many LISTs reach the server at once, and every informer still syncs and watches', async () => {
    server.faults.stall(true);
    const synced = start(2);
    await waitFor(() => server.requests().filter(isList).length === 2, { message: 'two LISTs at the server' });
    await turns();
    expect(server.requests().filter(isList)).toHaveLength(2);

    server.faults.stall(false);
    await Promise.all(synced);
    // Every kind listed (two pages of at most 2 objects each), each list only once it had a slot.
    const listed = new Set(
      server
        .requests()
        .filter(isList)
        .map((r) => r.path),
    );
    expect(listed.size).toBe(KINDS);
    await waitFor(() => server.openWatchCount() === KINDS, { message: 'a watch per kind' });
  });

  it('shares one ListLimiter given to several sources, and never holds a watch back', async () => {
    const limiter = new PeakLimiter(1);
    const synced = start(limiter);
    const other = new InformerWatchManager(
      new KubernetesInformerSource({ kubeConfig: server.kubeConfig(), listConcurrency: limiter }),
      0,
      () => {},
      silentLogger(),
    );
    try {
      const alsoSynced = Array.from({ length: KINDS }, (_, i) => other.ensureWatch(gvrOf(i), 'other'));
      await Promise.all([...synced, ...alsoSynced]);
      expect(limiter.peak).toBe(1);
      expect([limiter.active, limiter.queued]).toEqual([0, 0]);
      await waitFor(() => server.openWatchCount() === 2 * KINDS, { message: 'every watch of both sources open' });
    } finally {
      other.shutdown();
    }
  });

  it('without the option, lets 16 LISTs reach the server at once', async () => {
    const kinds = DEFAULT_LIST_CONCURRENCY + 4;
    for (let i = KINDS; i < kinds; i++) {
      server.registerResource({ ...gvrOf(i), kind: `Kind${i}`, namespaced: true });
      server.create(gvrOf(i), { metadata: { name: 'o-0', namespace: 'default' } });
    }
    server.faults.stall(true);
    const synced = start(undefined, kinds);
    await waitFor(() => server.requests().filter(isList).length === 16, { message: '16 LISTs at the server' });
    await turns();
    expect(server.requests().filter(isList)).toHaveLength(16);
    server.faults.stall(false);
    await Promise.all(synced);
  });

  it('with Infinity, holds no LIST back', async () => {
    server.faults.stall(true);
    const synced = start(Infinity);
    await waitFor(() => server.requests().filter(isList).length === KINDS, { message: 'every LIST at the server at once' });
    server.faults.stall(false);
    await Promise.all(synced);
  });

  it('frees the slot of an informer stopped while it waited, so the others still list', async () => {
    server.faults.stall(true);
    const limiter = new PeakLimiter(1);
    const synced = start(limiter);
    await waitFor(() => server.requests().filter(isList).length === 1, { message: 'the first LIST at the server' });
    // Stop every kind but the first two while they wait for the slot.
    for (let i = 2; i < KINDS; i++) manager!.releaseWatch(gvrOf(i), 'test');
    server.faults.stall(false);
    await Promise.all(synced.slice(0, 2));
    await Promise.allSettled(synced.slice(2));
    await waitFor(() => limiter.active === 0 && limiter.queued === 0, { message: 'every slot freed' });
    const listed = new Set(
      server
        .requests()
        .filter(isList)
        .map((r) => r.path),
    );
    expect(listed).toEqual(new Set([0, 1].map((i) => `/apis/cap.protean.dev/v1/${gvrOf(i).resource}`)));
  });
});
