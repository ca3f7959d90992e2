import { describe, expect, it } from '@jest/globals';
import {
  InvalidGroupVersionResourceError,
  isNotFound,
  KindNotServedError,
  WatchForbiddenError,
  type KindUnavailableError,
  type GroupVersionResource,
  type PartialObjectMetadata,
  type WatchEvent,
} from '@protean/core';
import {
  FakeClock,
  FakeInformerSource,
  FakeStatusError,
  fakeObject,
  flushMicrotasks,
  LogRecorder,
  Random,
  track,
} from '@protean/core/testing';
import { WatchError } from './WatchError.js';
import { InformerWatchManager } from './InformerWatchManager.js';
import type { InformerWatchManagerOptions } from './InformerWatchManagerOptions.js';

const cms: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const apps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

function obj(name: string, labels: Record<string, string> = {}, generation?: number, namespace = 'default'): PartialObjectMetadata {
  return fakeObject({ name, namespace, labels, ...(generation === undefined ? {} : { generation }) });
}

interface SetupOptions {
  /** Informers of every GVR sync as soon as they run. Default false: the test syncs them. */
  readonly autoSync?: boolean;
  readonly onEvent?: (e: WatchEvent) => void;
  /** The informers' resync period. Default 0: no resync. */
  readonly resyncPeriodMs?: number;
}

function setup(options: InformerWatchManagerOptions = {}, { autoSync = false, onEvent, resyncPeriodMs = 0 }: SetupOptions = {}) {
  const clock = new FakeClock();
  const source = new FakeInformerSource({ autoSync });
  const events: WatchEvent[] = [];
  const log = new LogRecorder('debug');
  const wm = new InformerWatchManager(source, resyncPeriodMs, onEvent ?? ((e) => events.push(e)), log.logger, { clock, ...options });
  return { clock, source, events, logs: log.records, wm };
}

describe('InformerWatchManager ownership', () => {
  it('starts the informer on first ensureWatch and resolves only once it has synced', async () => {
    const { clock, source, wm } = setup();
    expect(source.informers()).toHaveLength(0);
    const p = track(wm.ensureWatch(cms, 'a'));
    expect(source.informers()).toHaveLength(1);
    expect(source.informer()!.isRunning()).toBe(true);
    await clock.advanceAsync(500);
    expect(p.state).toBe('pending');
    source.informer()!.markSynced();
    await clock.advanceAsync(100);
    expect(p.state).toBe('resolved');
    expect(wm.activeWatchCount()).toBe(1);
  });

  it('shares one informer between owners and resolves at once when it has already synced', async () => {
    const { source, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    await wm.ensureWatch(cms, 'b');
    expect(source.informers()).toHaveLength(1);
    expect(wm.getInformer(cms)?.gvr).toEqual(cms);
  });

  it('keeps the informer while any owner remains and stops it when the last one releases', async () => {
    const { source, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    await wm.ensureWatch(cms, 'b');
    const inf = source.informer()!;
    wm.releaseWatch(cms, 'a');
    expect(inf.isStopped()).toBe(false);
    expect(wm.activeWatchCount()).toBe(1);
    wm.releaseWatch(cms, 'b');
    expect(inf.isStopped()).toBe(true);
    expect(wm.activeWatchCount()).toBe(0);
    expect(wm.getInformer(cms)).toBeUndefined();
  });

  it('treats owners as a set: a repeated ensureWatch by one owner is undone by one release', async () => {
    const { source, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    await wm.ensureWatch(cms, 'a');
    wm.releaseWatch(cms, 'a');
    expect(source.informer()!.isStopped()).toBe(true);
    expect(wm.activeWatchCount()).toBe(0);
  });

  it('ignores a release by an owner that holds nothing', async () => {
    const { source, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    wm.releaseWatch(cms, 'nobody');
    wm.releaseWatch(apps, 'a');
    expect(source.informer()!.isStopped()).toBe(false);
  });

  it('builds a fresh informer for an ensureWatch after the last release', async () => {
    const { source, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    const first = source.informer()!;
    wm.releaseWatch(cms, 'a');
    await wm.ensureWatch(cms, 'a');
    expect(source.informers()).toHaveLength(2);
    expect(source.informer()).not.toBe(first);
    expect(source.informer()!.isRunning()).toBe(true);
    expect(wm.getInformer(cms)?.gvr).toEqual(cms);
  });

  it('runs one informer per GVR', async () => {
    const { source, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    await wm.ensureWatch(apps, 'a');
    expect(wm.activeWatchCount()).toBe(2);
    expect(source.informers().map((i) => i.gvr.resource)).toEqual(['configmaps', 'webapps']);
  });

  it('rejects bad arguments with a TypeError naming them', async () => {
    const { wm } = setup();
    await expect(wm.ensureWatch(cms, '')).rejects.toThrow(/ownerId must be a non-empty string/);
    await expect(wm.ensureWatch({ group: '', version: '', resource: 'x' }, 'a')).rejects.toThrow(TypeError);
    expect(wm.activeWatchCount()).toBe(0);
  });

  it.each([
    { group: '', version: 'v1', resource: 'namespaces/default/configmaps' },
    { group: '', version: 'v1', resource: '..' },
    { group: 'a/b', version: 'v1', resource: 'things' },
    { group: '', version: 'v1/..', resource: 'configmaps' },
  ])('rejects the malformed GVR $group/$version/$resource with InvalidGroupVersionResourceError, creating no informer', async (gvr) => {
    const { source, wm } = setup();
    const err = await wm.ensureWatch(gvr, 'a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGroupVersionResourceError);
    expect(source.informers()).toEqual([]);
    expect(wm.activeWatchCount()).toBe(0);
    expect(wm.getInformer(gvr)).toBeUndefined();
  });

  it('rejects with an InformerError when the source cannot build the informer, holding nothing', async () => {
    const { source, wm } = setup();
    source.failNextCreate(new Error('no such resource kind'));
    const err = await wm.ensureWatch(cms, 'a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchError);
    expect((err as WatchError).reason).toBe('InformerError');
    expect((err as WatchError).cause).toBeInstanceOf(Error);
    expect(wm.activeWatchCount()).toBe(0);
  });
});

describe('InformerWatchManager sync timeout', () => {
  it('rejects after syncTimeoutMs with an error naming the GVR, and stops the informer no one else holds', async () => {
    const { clock, source, wm } = setup({ syncTimeoutMs: 5000 });
    const p = track(wm.ensureWatch(apps, 'a'));
    await clock.advanceAsync(4999);
    expect(p.state).toBe('pending');
    await clock.advanceAsync(1);
    expect(p.state).toBe('rejected');
    const err = p.error as WatchError;
    expect(err).toBeInstanceOf(WatchError);
    expect(err.name).toBe('WatchError');
    expect(err.reason).toBe('SyncTimeout');
    expect(err.message).toContain('demo.protean.dev/v1/webapps');
    expect(err.gvr).toEqual(apps);
    expect(source.informer()!.isStopped()).toBe(true);
    expect(wm.activeWatchCount()).toBe(0);
  });

  it('drops only the timed-out owner: another owner keeps the informer and resolves when it syncs', async () => {
    const { clock, source, wm } = setup({ syncTimeoutMs: 5000 });
    const a = track(wm.ensureWatch(apps, 'a'));
    await clock.advanceAsync(2000);
    const b = track(wm.ensureWatch(apps, 'b'));
    await clock.advanceAsync(3000);
    expect(a.state).toBe('rejected');
    expect(b.state).toBe('pending');
    expect(source.informer()!.isStopped()).toBe(false);
    expect(wm.activeWatchCount()).toBe(1);
    source.informer()!.markSynced();
    await clock.advanceAsync(100);
    expect(b.state).toBe('resolved');
    wm.releaseWatch(apps, 'b');
    expect(source.informer()!.isStopped()).toBe(true);
  });

  it('names the last informer error in the timeout error', async () => {
    const { clock, source, wm } = setup({ syncTimeoutMs: 1000 });
    const p = track(wm.ensureWatch(apps, 'a'));
    source.informer()!.reportWatchError(new FakeStatusError(500, 'etcd is sad'));
    await clock.advanceAsync(1000);
    const err = p.error as WatchError;
    expect(err.message).toContain('etcd is sad');
    expect(err.cause).toBeInstanceOf(FakeStatusError);
    expect(err.status).toBe(500);
  });

  it('reads syncTimeoutMs at each call, and treats 0 as the 30 s default', async () => {
    const { clock, wm } = setup();
    expect(wm.syncTimeoutMs).toBe(30_000);
    wm.syncTimeoutMs = 0;
    const p = track(wm.ensureWatch(apps, 'a'));
    await clock.advanceAsync(29_999);
    expect(p.state).toBe('pending');
    await clock.advanceAsync(1);
    expect(p.state).toBe('rejected');
  });

  it('turns later callers away at once after a timeout, until the failure window passes', async () => {
    const { clock, source, wm } = setup({ syncTimeoutMs: 1000 });
    const first = track(wm.ensureWatch(apps, 'a'));
    await clock.advanceAsync(1000);
    expect(first.state).toBe('rejected');
    const err = await wm.ensureWatch(apps, 'b').catch((e: unknown) => e);
    expect((err as WatchError).reason).toBe('BackingOff');
    expect(((err as WatchError).cause as Error).cause).toBe(first.error);
    expect(source.informers()).toHaveLength(1);
    await clock.advanceAsync(1000);
    const retry = track(wm.ensureWatch(apps, 'b'));
    expect(source.informers()).toHaveLength(2);
    source.informer()!.markSynced();
    await clock.advanceAsync(100);
    expect(retry.state).toBe('resolved');
  });
});

describe('InformerWatchManager refusal and failure memory', () => {
  it('fails a pending ensureWatch at once on a 404 before sync, with a KindNotServedError carrying GVR, status and cause', async () => {
    const { source, wm } = setup();
    const p = track(wm.ensureWatch(apps, 'a'));
    const b = track(wm.ensureWatch(apps, 'b'));
    const cause = new FakeStatusError(404, 'the server could not find the requested resource');
    source.informer()!.reportWatchError(cause);
    await flushMicrotasks();
    expect(p.state).toBe('rejected');
    expect(b.state).toBe('rejected');
    const err = p.error as KindNotServedError;
    expect(err).toBeInstanceOf(KindNotServedError);
    expect(err.reason).toBe('NotFound');
    expect(err.status).toBe(404);
    expect(err.cause).toBe(cause);
    expect(err.gvr).toEqual(apps);
    expect(err.message).toMatch(/^demo\.protean\.dev\/v1\/webapps is not served: the API server answered 404 \(is the resource served\?/);
    expect(isNotFound(err)).toBe(true); // a 404 still, for whoever asks; the controller tells it from a deleted instance
    expect(source.informer()!.isStopped()).toBe(true);
    expect(wm.activeWatchCount()).toBe(0);
  });

  it('fails fast on 403 as a WatchForbiddenError naming the verb, but keeps waiting through a 500', async () => {
    const { source, wm } = setup();
    const p = track(wm.ensureWatch(cms, 'a'));
    source.informer()!.reportWatchError(new FakeStatusError(500, 'internal'));
    await flushMicrotasks();
    expect(p.state).toBe('pending');
    source.informer()!.reportWatchError(new FakeStatusError(403, 'configmaps is forbidden'));
    await flushMicrotasks();
    expect(p.state).toBe('rejected');
    const err = p.error as WatchForbiddenError;
    expect(err).toBeInstanceOf(WatchForbiddenError);
    expect(err.reason).toBe('Forbidden');
    expect(err.verb).toBe('list');
    expect(err.message).toBe(
      'forbidden to list configmaps (group "", version v1) at the cluster scope: the API server answered 403; waiting for RBAC to grant "list"',
    );
  });

  it('does not remember a kind refusal as a failure: the next caller asks the server again, with no BackingOff', async () => {
    const { source, wm } = setup();
    for (const status of [404, 403]) {
      const p = track(wm.ensureWatch(apps, 'a'));
      source.informer()!.reportWatchError(new FakeStatusError(status, 'refused'));
      await flushMicrotasks();
      expect(p.state).toBe('rejected');
    }
    const next = track(wm.ensureWatch(apps, 'b'));
    expect(source.informers()).toHaveLength(3);
    source.informer()!.markSynced();
    await flushMicrotasks();
    expect(next.state).toBe('resolved');
  });

  it('whenAvailable asks the source when it can tell, else waits kindRecheckMs on its clock; shutdown ends the wait', async () => {
    const { clock, wm } = setup({ kindRecheckMs: 2000 });
    const refusal = new KindNotServedError(apps);
    const waited = track(wm.whenAvailable(refusal, new AbortController().signal));
    await clock.advanceAsync(1999);
    expect(waited.state).toBe('pending');
    await clock.advanceAsync(1);
    expect(waited.state).toBe('resolved');

    const told: KindUnavailableError[] = [];
    let answer!: () => void;
    const source = Object.assign(new FakeInformerSource(), {
      whenAvailable: (r: KindUnavailableError) => {
        told.push(r);
        return new Promise<void>((resolve) => (answer = resolve));
      },
    });
    const asks = new InformerWatchManager(source, 0, () => {}, new LogRecorder('debug').logger, { clock });
    const viaSource = track(asks.whenAvailable(refusal, new AbortController().signal));
    await clock.advanceAsync(60_000);
    expect(viaSource.state).toBe('pending');
    expect(told).toEqual([refusal]);
    answer();
    await flushMicrotasks();
    expect(viaSource.state).toBe('resolved');

    const cut = track(wm.whenAvailable(refusal, new AbortController().signal));
    wm.shutdown();
    await flushMicrotasks();
    expect(cut.state).toBe('resolved');
  });

  it('ignores informer errors after the first sync (the informer retries on its own)', async () => {
    const { source, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    source.informer()!.reportWatchError(new FakeStatusError(404, 'gone'));
    expect(source.informer()!.isStopped()).toBe(false);
    await expect(wm.ensureWatch(cms, 'b')).resolves.toBeUndefined();
  });

  it('rejects later callers at once with the remembered cause, doubling the window per consecutive failure', async () => {
    const { clock, source, wm } = setup();
    const notFound = new FakeStatusError(401, 'not served');
    const first = track(wm.ensureWatch(apps, 'a'));
    source.informer()!.reportWatchError(notFound);
    await flushMicrotasks();
    expect(first.state).toBe('rejected');

    const fast = (await wm.ensureWatch(apps, 'b').catch((e: unknown) => e)) as WatchError;
    expect(fast.reason).toBe('BackingOff');
    expect(fast.status).toBe(401);
    expect(fast.message).toContain('not served');
    expect(source.informers()).toHaveLength(1);

    await clock.advanceAsync(1000);
    const second = track(wm.ensureWatch(apps, 'b'));
    expect(source.informers()).toHaveLength(2);
    source.informer()!.reportWatchError(notFound);
    await flushMicrotasks();
    expect(second.state).toBe('rejected');

    await clock.advanceAsync(1000);
    await expect(wm.ensureWatch(apps, 'c')).rejects.toMatchObject({ reason: 'BackingOff' });
    await clock.advanceAsync(1000);
    const third = track(wm.ensureWatch(apps, 'c'));
    expect(source.informers()).toHaveLength(3);
    source.informer()!.markSynced();
    await clock.advanceAsync(100);
    expect(third.state).toBe('resolved');
  });

  it('forgets past failures after a successful sync', async () => {
    const { clock, source, wm } = setup({ failureBackoff: { initialMs: 1000, maxMs: 60_000 } });
    for (let i = 0; i < 3; i++) {
      const p = track(wm.ensureWatch(apps, 'a'));
      source.informer()!.reportWatchError(new FakeStatusError(401, 'not served'));
      await flushMicrotasks();
      expect(p.state).toBe('rejected');
      await clock.advanceAsync(60_000);
    }
    source.setAutoSync(apps, true);
    await wm.ensureWatch(apps, 'a');
    wm.releaseWatch(apps, 'a');
    source.setAutoSync(apps, false);
    const p = track(wm.ensureWatch(apps, 'a'));
    source.informer()!.reportWatchError(new FakeStatusError(401, 'not served'));
    await flushMicrotasks();
    expect(p.state).toBe('rejected');
    await clock.advanceAsync(1000);
    const after = track(wm.ensureWatch(apps, 'a'));
    expect(after.state).toBe('pending');
  });
});

describe('InformerWatchManager concurrent ensure and release', () => {
  it('rejects a pending ensureWatch whose owner releases, and stops the informer no one holds', async () => {
    const { source, wm } = setup();
    const p = track(wm.ensureWatch(cms, 'a'));
    wm.releaseWatch(cms, 'a');
    await flushMicrotasks();
    expect(p.state).toBe('rejected');
    expect((p.error as WatchError).reason).toBe('Released');
    expect(source.informer()!.isStopped()).toBe(true);
    expect(wm.activeWatchCount()).toBe(0);
  });

  it('ensure A, release A, ensure B: B waits on a fresh informer, not on the stopped one', async () => {
    const { clock, source, wm } = setup();
    const a = track(wm.ensureWatch(cms, 'a'));
    const old = source.informer()!;
    // The first informer syncs while A holds it, then A releases it.
    old.markSynced();
    await flushMicrotasks();
    expect(a.state).toBe('resolved');
    wm.releaseWatch(cms, 'a');
    expect(old.isStopped()).toBe(true);
    const b = track(wm.ensureWatch(cms, 'b'));
    expect(source.informers()).toHaveLength(2);
    await clock.advanceAsync(200);
    expect(b.state).toBe('pending');
    source.informer()!.markSynced();
    await flushMicrotasks();
    expect(b.state).toBe('resolved');
    expect(wm.getInformer(cms)?.hasSynced()).toBe(true);
  });

  it('ensure A, ensure B, release A: B still gets the informer when it syncs', async () => {
    const { clock, source, wm } = setup();
    const a = track(wm.ensureWatch(cms, 'a'));
    const b = track(wm.ensureWatch(cms, 'b'));
    wm.releaseWatch(cms, 'a');
    await flushMicrotasks();
    expect(a.state).toBe('rejected');
    expect(source.informer()!.isStopped()).toBe(false);
    source.informer()!.markSynced();
    await clock.advanceAsync(100);
    expect(b.state).toBe('resolved');
    expect(source.informers()).toHaveLength(1);
    expect(wm.activeWatchCount()).toBe(1);
  });

  it('ensure A, release A, ensure A: the first call rejects, the second resolves on the new informer', async () => {
    const { clock, source, wm } = setup();
    const first = track(wm.ensureWatch(cms, 'a'));
    wm.releaseWatch(cms, 'a');
    const second = track(wm.ensureWatch(cms, 'a'));
    source.informer()!.markSynced();
    await clock.advanceAsync(100);
    expect(first.state).toBe('rejected');
    expect(second.state).toBe('resolved');
    wm.releaseWatch(cms, 'a');
    expect(wm.activeWatchCount()).toBe(0);
  });

  it('never leaves an informer without an owner or an owner without an informer, over random interleavings', async () => {
    const { clock, source, wm } = setup({ syncTimeoutMs: 700 });
    const random = new Random(42);
    const rand = (n: number): number => random.int(n);
    const owners = ['a', 'b', 'c'];
    const held = new Map<string, 'pending' | 'held'>();
    for (let step = 0; step < 400; step++) {
      const owner = owners[rand(owners.length)]!;
      const op = rand(4);
      if (op === 0) {
        const p = wm.ensureWatch(cms, owner);
        if (held.get(owner) !== 'held') held.set(owner, 'pending');
        p.then(
          () => held.set(owner, 'held'),
          () => held.delete(owner),
        );
      } else if (op === 1) {
        wm.releaseWatch(cms, owner);
        held.delete(owner);
      } else if (op === 2 && source.informers().length > 0) {
        source.informer()!.markSynced();
      } else {
        await clock.advanceAsync(100 * (1 + rand(3)));
      }
      await flushMicrotasks();
      const informer = wm.getInformer(cms);
      const live = source.informers().filter((i) => !i.isStopped());
      expect(live.length).toBe(informer === undefined ? 0 : 1);
      if (informer !== undefined) expect(informer.hasSynced()).toBe(live[0]!.hasSynced());
      // Every owner that believes it holds the watch has a running, synced informer.
      for (const [, state] of held) if (state === 'held') expect(informer?.hasSynced()).toBe(true);
      if (held.size === 0) expect(informer).toBeUndefined();
    }
  });
});

describe('InformerWatchManager events', () => {
  it('emits one normalized event per informer event, with copied labels and generations', async () => {
    const { source, events, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    const inf = source.informer()!;
    const v1 = obj('x', { app: 'web' }, 1);
    inf.add(v1);
    inf.update(obj('x', { app: 'api' }, 2));
    inf.delete(obj('x', { app: 'api' }, 2));
    expect(events).toEqual([
      { type: 'add', gvr: cms, name: 'x', namespace: 'default', labels: { app: 'web' }, generation: 1 },
      {
        type: 'update',
        gvr: cms,
        name: 'x',
        namespace: 'default',
        labels: { app: 'api' },
        oldLabels: { app: 'web' },
        generation: 2,
        oldGeneration: 1,
      },
      { type: 'delete', gvr: cms, name: 'x', namespace: 'default', labels: { app: 'api' }, generation: 2 },
    ]);
    (events[0]!.labels as Record<string, string>)['app'] = 'mutated';
    expect(v1.metadata.labels).toEqual({ app: 'web' });
  });

  it('emits a delete found by a relist as a tombstone of the last known object, with its labels', async () => {
    const { source, events, wm } = setup({}, { autoSync: true });
    source.add(cms, { name: 'x', namespace: 'default', labels: { app: 'web' } });
    await wm.ensureWatch(cms, 'a');
    source.delete(cms, { namespace: 'default', name: 'x' }, { finalStateUnknown: true });
    expect(events.map((e) => [e.type, e.namespace, e.name, e.labels, e.initialList])).toEqual([
      ['add', 'default', 'x', { app: 'web' }, true],
      ['delete', 'default', 'x', { app: 'web' }, undefined],
    ]);
    expect(wm.getInformer(cms)!.list()).toEqual([]);
  });

  it('emits the initial list of a source that lists as soon as it runs', async () => {
    const { source, events, wm } = setup({}, { autoSync: true });
    source.add(cms, { name: 'pre', namespace: 'default' });
    await wm.ensureWatch(cms, 'a');
    expect(events.map((e) => `${e.type}:${e.name}:${String(e.initialList)}`)).toEqual(['add:pre:true']);
  });

  it('flags the adds of the initial list and the updates of a resync, and nothing else', async () => {
    const { clock, source, events, wm } = setup({}, { resyncPeriodMs: 1000 });
    const listed = source.add(cms, { name: 'listed', namespace: 'default', generation: 1 });
    const pending = track(wm.ensureWatch(cms, 'a'));
    const inf = source.informer()!;
    inf.markSynced(); // the initial list: `listed`, as an add flagged isInInitialList
    await clock.advanceAsync(100);
    expect(pending.state).toBe('resolved');
    await clock.advanceAsync(900); // the resync: the engine replays the cached object as an update to itself
    inf.add(obj('later', {}, 1));
    inf.update(listed); // a watch event repeating the cached resourceVersion: a change delivered, not a replay
    inf.update(obj('listed', { changed: 'yes' }, 1));
    expect(events.map((e) => [e.type, e.name, e.initialList, e.resync])).toEqual([
      ['add', 'listed', true, undefined],
      ['update', 'listed', undefined, true],
      ['add', 'later', undefined, undefined],
      ['update', 'listed', undefined, undefined],
      ['update', 'listed', undefined, undefined],
    ]);
    expect(events[3]!.resourceVersion).toBe(events[1]!.resourceVersion);
    wm.shutdown();
  });

  it('logs an onEvent that throws and keeps delivering later events', async () => {
    const delivered: string[] = [];
    const { source, logs, wm } = setup(
      {},
      {
        autoSync: true,
        onEvent: (e) => {
          delivered.push(e.name);
          if (e.name === 'bad') throw new Error('consumer bug');
        },
      },
    );
    await wm.ensureWatch(cms, 'a');
    source.informer()!.add(obj('bad'));
    source.informer()!.add(obj('good'));
    expect(delivered).toEqual(['bad', 'good']);
    expect(logs.some((l) => l.level === 50 && l.msg?.includes('onEvent threw'))).toBe(true);
  });

  it('emits nothing for an informer after its last owner released it', async () => {
    const { source, events, wm } = setup({}, { autoSync: true });
    await wm.ensureWatch(cms, 'a');
    const inf = source.informer()!;
    wm.releaseWatch(cms, 'a');
    inf.add(obj('late'));
    inf.reportWatchError(new Error('late'));
    expect(events).toEqual([]);
  });
});

describe('InformerWatchManager health', () => {
  it('reports each running informer in start order: owners, whether it synced, and its own health', async () => {
    const { clock, source, wm } = setup();
    const synced = wm.ensureWatch(cms, 'a');
    void wm.ensureWatch(cms, 'b');
    void wm.ensureWatch(apps, 'c').catch(() => undefined);
    source.informer(cms)!.markSynced();
    await clock.advanceAsync(20);
    await synced;
    expect(wm.health()).toEqual([
      { gvr: cms, owners: ['a', 'b'], synced: true, informer: expect.objectContaining({ synced: true, relists: 0, failing: undefined }) },
      { gvr: apps, owners: ['c'], synced: false, informer: { synced: false, idleMs: undefined, relists: 0, failing: undefined } },
    ]);
    wm.releaseWatch(cms, 'a');
    wm.releaseWatch(cms, 'b');
    expect(wm.health().map((h) => h.gvr)).toEqual([apps]);
  });
});

describe('InformerWatchManager shutdown', () => {
  it('stops every informer, rejects pending callers, and rejects later calls', async () => {
    const { source, wm } = setup();
    source.setAutoSync(cms, true);
    await wm.ensureWatch(cms, 'a');
    const pending = track(wm.ensureWatch(apps, 'a'));
    wm.shutdown();
    await flushMicrotasks();
    expect(source.informers().every((i) => i.isStopped())).toBe(true);
    expect(pending.state).toBe('rejected');
    expect((pending.error as WatchError).reason).toBe('Shutdown');
    expect(wm.activeWatchCount()).toBe(0);
    await expect(wm.ensureWatch(cms, 'b')).rejects.toMatchObject({ reason: 'Shutdown' });
    wm.shutdown();
  });

  it('leaves no timer behind once everything is released', async () => {
    const { clock, source, wm } = setup();
    const p = track(wm.ensureWatch(cms, 'a'));
    source.informer()!.markSynced();
    await clock.advanceAsync(100);
    expect(p.state).toBe('resolved');
    const q = track(wm.ensureWatch(apps, 'b'));
    wm.releaseWatch(apps, 'b');
    await flushMicrotasks();
    expect(q.state).toBe('rejected');
    expect(clock.pendingTimers()).toBe(0);
  });
});
