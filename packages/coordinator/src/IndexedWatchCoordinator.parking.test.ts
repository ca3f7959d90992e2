import { describe, expect, it } from '@jest/globals';
import { KindNotServedError, WatchForbiddenError } from '@protean/core';
import { kindUnavailableOf } from '@protean/core/internal';
import { EnqueueRecorder, FakeWatchManager, flushMicrotasks, LogRecorder } from '@protean/core/testing';
import { APP1, APP2, app1, app2, databases, webapps } from './fixtures.testkit.js';
import { event } from './harness.testkit.js';
import { IndexedWatchCoordinator } from './IndexedWatchCoordinator.js';
import { WatchUnavailableError } from './WatchUnavailableError.js';

/*
 * A kind that is not served (its CRD not installed yet) or not allowed: the instances that declared a watch on it
 * are parked on the kind, keep their declarations, and are woken once each when the kind becomes available.
 */

const db1 = { nodeId: 'db', gvr: databases, name: 'db1', namespace: 'default' } as const;

function harness() {
  const watchManager = new FakeWatchManager();
  const enqueued = new EnqueueRecorder();
  const log = new LogRecorder('debug');
  const coordinator = new IndexedWatchCoordinator(watchManager, enqueued.enqueue, log.logger);
  return { coordinator, watchManager, enqueued, log };
}

/** One pass of `instance` declaring `db1`; resolves with what `watch` rejected with, if anything. */
async function pass(coordinator: IndexedWatchCoordinator, instance: typeof app1): Promise<unknown> {
  const p = coordinator.beginPass(webapps, instance);
  const err = await p.watch(db1).then(
    () => undefined,
    (e: unknown) => e,
  );
  p.end(true); // what the workers do with a pass that waits for a kind
  return err;
}

describe('IndexedWatchCoordinator: instances parked on an unavailable kind', () => {
  it('keeps the declarations of a kind that is not served, refuses later watches at once, and wakes every instance once when it is served', async () => {
    const { coordinator, watchManager, enqueued, log } = harness();
    watchManager.failEnsure(databases, new KindNotServedError(databases, { status: 404 }));
    const first = await pass(coordinator, app1);
    expect(first).toBeInstanceOf(WatchUnavailableError);
    expect(kindUnavailableOf(first)).toBeInstanceOf(KindNotServedError);
    const second = await pass(coordinator, app2);
    expect(kindUnavailableOf(second)).toBeInstanceOf(KindNotServedError);
    // Parked: one attempt at the watch manager, one wait, both instances' declarations kept (they route once served).
    expect(watchManager.count('ensure', databases)).toBe(1);
    expect(watchManager.availabilityWaitsFor(databases)).toBe(1);
    expect(coordinator.declaredWatches().map((w) => w.name)).toEqual(['app1', 'app2']);
    expect(log.find('is not available')).toHaveLength(1);

    // Available again, but the watch manager still refuses: parked again, no wake, no new line at warn.
    watchManager.announceAvailable(databases);
    await flushMicrotasks();
    expect(watchManager.count('ensure', databases)).toBe(2);
    expect(watchManager.availabilityWaitsFor(databases)).toBe(1);
    expect(enqueued.keys()).toEqual([]);
    expect(log.find('is not available')).toHaveLength(1);

    watchManager.failEnsure(databases, undefined);
    watchManager.announceAvailable(databases);
    await flushMicrotasks();
    expect(enqueued.take()).toEqual([APP1, APP2]);
    expect(log.find('is available again')).toHaveLength(1);
    expect(watchManager.isWatching(databases, 'coordinator')).toBe(true);

    // Now it routes like any watch.
    coordinator.routeEvent(event(databases, 'default', 'db1'));
    expect(enqueued.take()).toEqual([APP1, APP2]);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('stops waiting when the last parked instance goes, and starts afresh after', async () => {
    const { coordinator, watchManager, enqueued } = harness();
    watchManager.failEnsure(databases, new WatchForbiddenError(databases, 'list', { status: 403 }));
    await pass(coordinator, app1);
    expect(watchManager.availabilityWaitsFor(databases)).toBe(1);
    coordinator.removeInstance(webapps, app1);
    await flushMicrotasks();
    expect(watchManager.availabilityWaitsFor(databases)).toBe(0);
    expect(coordinator.declaredWatches()).toEqual([]);

    watchManager.failEnsure(databases, undefined);
    watchManager.announceAvailable(databases);
    await flushMicrotasks();
    expect(enqueued.keys()).toEqual([]);
    expect(await pass(coordinator, app2)).toBeUndefined();
    expect(watchManager.count('ensure', databases)).toBe(2);
    expect(watchManager.anomalies).toEqual([]);
  });

  it('drops the requests of a failure that is no kind refusal, as before', async () => {
    const { coordinator, watchManager } = harness();
    watchManager.failEnsure(databases, new Error('sync timed out'));
    const err = await pass(coordinator, app1);
    expect(err).toBeInstanceOf(WatchUnavailableError);
    expect(kindUnavailableOf(err)).toBeUndefined();
    expect(watchManager.availabilityWaitsFor(databases)).toBe(0);
    expect(coordinator.declaredWatches()).toEqual([]);
  });

  it('summarizes nothing per instance: one line per kind and transition, whatever the number of instances', async () => {
    const { coordinator, watchManager, log } = harness();
    watchManager.failEnsure(databases, new KindNotServedError(databases, { status: 404 }));
    for (let i = 0; i < 20; i++) await pass(coordinator, { namespace: 'default', name: `app${i}` });
    watchManager.failEnsure(databases, undefined);
    watchManager.announceAvailable(databases);
    await flushMicrotasks();
    const lines = log.records.filter((r) => r.level >= 30 && String(r['gvr']) === 'demo.protean.dev/v1/databases');
    expect(lines.map((r) => r.msg)).toEqual([
      'kind demo.protean.dev/v1/databases is not available; its requests wait for it',
      'kind demo.protean.dev/v1/databases is available again; waking the instances that wait for it',
    ]);
  });
});
