import { describe, expect, it } from '@jest/globals';
import { DeletedFinalStateUnknown, type ListWatchSink, type PartialObjectMetadata } from '@protean/core';
import { FakeClock, FakeListWatch, FakeStatusError, fakeObject, LogRecorder } from '@protean/core/testing';
import { Informer, runInformer, type InformerListener } from './Informer.js';

const gvr = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

/** A listener that records each call as a line, with whether the cache already held the new state. */
function recorder(informer: () => Informer): InformerListener & { lines: string[] } {
  const lines: string[] = [];
  const cached = (o: PartialObjectMetadata): string =>
    informer().get({ namespace: o.metadata.namespace ?? '', name: o.metadata.name }) === o ? ' cached' : '';
  return {
    lines,
    onAdd: (o, initial) => lines.push(`add ${o.metadata.name}${initial ? ' initial' : ''}${cached(o)}`),
    onUpdate: (old, o) => lines.push(`update ${o.metadata.name} ${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
    onDelete: (o) =>
      lines.push(
        o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key} ${o.obj?.metadata.resourceVersion}` : `delete ${o.metadata.name}`,
      ),
    onSynced: () => lines.push(`synced ${informer().hasSynced()}`),
    onError: (err) => lines.push(`error ${err.message}`),
  };
}

/** An engine over a source that hands its sink to the test. */
function rig(options: { resyncPeriodMs?: number; clock?: FakeClock } = {}) {
  let sink!: ListWatchSink;
  const source = { gvr, run: (s: ListWatchSink) => void (sink = s) };
  const rec = recorder(() => informer);
  const informer = new Informer(source, rec, options);
  const abort = new AbortController();
  informer.run(abort.signal);
  return { informer, rec, sink: () => sink, abort };
}

const o = (name: string, rv: string, ns = 'ns'): PartialObjectMetadata => fakeObject({ name, namespace: ns, resourceVersion: rv });

describe('Informer (the engine)', () => {
  it('delivers the first list as initial adds with the cache in place, then signals sync once', () => {
    const { informer, rec, sink } = rig();
    expect(informer.hasSynced()).toBe(false);
    sink().replace([o('a', '1'), o('b', '1')]);
    expect(rec.lines).toEqual(['add a initial cached', 'add b initial cached', 'synced true']);
    expect(informer.list().map((x) => x.metadata.name)).toEqual(['a', 'b']);
  });

  it('builds a streamed list without touching the cache until endList; a new beginList drops a broken one', () => {
    const { informer, rec, sink } = rig();
    sink().replace([o('old', '1')]);
    rec.lines.length = 0;
    sink().beginList();
    sink().upsert(o('lost', '2'));
    sink().beginList();
    sink().upsert(o('new', '3'));
    sink().upsert(o('gone', '3'));
    sink().remove(o('gone', '4'));
    expect(informer.list().map((x) => x.metadata.name)).toEqual(['old']);
    sink().endList();
    expect(rec.lines).toEqual(['tombstone ns/old 1', 'add new cached']);
    expect(informer.health().relists).toBe(1);
  });

  it('drops a streamed list cut off by a failure: later events change the cache, not a list that never ends', () => {
    const { informer, rec, sink } = rig();
    sink().replace([o('a', '1')]);
    rec.lines.length = 0;
    sink().beginList();
    sink().upsert(o('partial', '2'));
    sink().failed(new Error('reset'));
    sink().upsert(o('b', '3'));
    sink().endList();
    expect(rec.lines).toEqual(['error reset', 'add b cached']);
    expect(informer.list().map((x) => x.metadata.name)).toEqual(['a', 'b']);
  });

  it('retains only what a narrowed filter keeps, in the cache at once (as deletes) and in a streamed list in progress', () => {
    const { informer, rec, sink } = rig();
    sink().replace([o('a', '1', 'mine'), o('b', '1', 'theirs')]);
    rec.lines.length = 0;
    sink().beginList();
    sink().upsert(o('a', '2', 'mine'));
    sink().upsert(o('b', '2', 'theirs'));
    sink().retain((x) => x.metadata.namespace === 'mine');
    expect(rec.lines).toEqual(['delete b']);
    expect(informer.list().map((x) => x.metadata.name)).toEqual(['a']);
    sink().endList();
    // The list in progress lost `b` too: it does not come back when the list commits.
    expect(rec.lines).toEqual(['delete b', 'update a 1->2']);
    expect(informer.list().map((x) => x.metadata.name)).toEqual(['a']);
  });

  it('diffs a relist: tombstones for what vanished, updates for new versions, nothing for the unchanged', () => {
    const { informer, rec, sink } = rig();
    const same = o('same', '1');
    sink().replace([same, o('changed', '1'), o('vanished', '1')]);
    rec.lines.length = 0;
    sink().replace([o('same', '1'), o('changed', '2'), o('new', '2')]);
    expect(rec.lines).toEqual(['tombstone ns/vanished 1', 'update changed 1->2', 'add new cached']);
    // The unchanged object stays the very object listeners already hold.
    expect(informer.get({ namespace: 'ns', name: 'same' })).toBe(same);
  });

  it('applies watch events: add, update with the old object, delete of the event object', () => {
    const { rec, sink } = rig();
    sink().replace([]);
    sink().upsert(o('a', '2'));
    sink().upsert(o('a', '3'));
    sink().remove(o('a', '4'));
    expect(rec.lines).toEqual(['synced true', 'add a cached', 'update a 2->3', 'delete a']);
  });

  it('resyncs on its clock: every cached object as an update to itself, and never before the sync', () => {
    const clock = new FakeClock();
    const { rec, sink, abort } = rig({ resyncPeriodMs: 1000, clock });
    clock.advance(5000);
    expect(rec.lines).toEqual([]);
    sink().replace([o('a', '1')]);
    clock.advance(1000);
    clock.advance(1000);
    expect(rec.lines).toEqual(['add a initial cached', 'synced true', 'update a 1->1', 'update a 1->1']);
    abort.abort();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('tells its listener which updates replay the cache: a resync says so, a watch event repeating a resourceVersion does not', () => {
    const clock = new FakeClock();
    let sink!: ListWatchSink;
    const seen: string[] = [];
    const informer = new Informer(
      { gvr, run: (s: ListWatchSink) => void (sink = s) },
      {
        onUpdate: (old, obj, resync) =>
          seen.push(`${old.metadata.resourceVersion}->${obj.metadata.resourceVersion} ${old === obj ? 'same' : 'other'} ${String(resync)}`),
      },
      { resyncPeriodMs: 1000, clock },
    );
    const abort = new AbortController();
    informer.run(abort.signal);
    sink.replace([o('a', '1')]);
    // A watch event with the cached resourceVersion (a copy): a change the source delivered, not a replay.
    sink.upsert(o('a', '1'));
    sink.upsert(o('a', '2'));
    // The resync timer: the cache replayed, each object as an update to itself.
    clock.advance(1000);
    // A relist whose object moved on: the relist diff's update, not a replay.
    sink.replace([o('a', '3')]);
    expect(seen).toEqual(['1->1 other false', '1->2 other false', '2->2 same true', '2->3 other false']);
    abort.abort();
  });

  it('refuses a resyncPeriodMs that is not a finite number >= 0, naming it', () => {
    const source = { gvr, run: () => undefined };
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new Informer(source, {}, { resyncPeriodMs: bad })).toThrow(RangeError);
      expect(() => new Informer(source, {}, { resyncPeriodMs: bad })).toThrow(
        `Informer: resyncPeriodMs must be a finite number >= 0, got ${String(bad)}`,
      );
    }
    expect(() => new Informer(source, {}, { resyncPeriodMs: 0 })).not.toThrow();
  });

  it('refuses a resyncPeriodMs past the longest timer delay (2^31 - 1 ms), naming it and the limit, in new Informer and runInformer', () => {
    const source = { gvr, run: () => undefined };
    const message = `Informer: resyncPeriodMs must be at most ${2 ** 31 - 1} ms (the longest delay Node's timers honour), got ${2 ** 31}`;
    expect(() => new Informer(source, {}, { resyncPeriodMs: 2 ** 31 })).toThrow(RangeError);
    expect(() => new Informer(source, {}, { resyncPeriodMs: 2 ** 31 })).toThrow(message);
    expect(() => runInformer(source, {}, new AbortController().signal, { resyncPeriodMs: 2 ** 31 })).toThrow(message);
    expect(() => new Informer(source, {}, { resyncPeriodMs: 2 ** 31 - 1 })).not.toThrow();
  });

  it('judges health from the sink calls when the source has no report of its own', () => {
    const clock = new FakeClock();
    const { informer, sink } = rig({ clock });
    expect(informer.health()).toEqual({ synced: false, idleMs: undefined, relists: 0, failing: undefined });
    sink().failed(new FakeStatusError(403));
    clock.advance(300);
    // A list begun before its request is answered is no contact with the server: the outage goes on.
    sink().beginList();
    sink().failed(new FakeStatusError(403));
    expect(informer.health().failing).toMatchObject({ forMs: 300, consecutive: 2, status: 403 });
    sink().replace([]);
    clock.advance(50);
    expect(informer.health()).toEqual({ synced: true, idleMs: 50, relists: 0, failing: undefined });
    sink().progressed();
    expect(informer.health().idleMs).toBe(0);
  });

  it("takes idle time, the outage and the list mode from a source's own report", () => {
    const report = { idleMs: 7, failing: undefined, listMode: 'streaming' as const };
    const source = { gvr, run: (s: ListWatchSink) => s.replace([o('a', '1')]), health: () => report };
    const informer = new Informer(source, {});
    informer.run(new AbortController().signal);
    expect(informer.health()).toEqual({ synced: true, relists: 0, ...report });
  });

  it('changes nothing once stopped, and isolates a listener that throws', () => {
    const logs = new LogRecorder('error');
    let sink!: ListWatchSink;
    const informer = new Informer(
      { gvr, run: (s) => void (sink = s) },
      {
        onAdd: (obj) => {
          if (obj.metadata.name === 'bad') throw new Error('listener bug');
        },
      },
      { logger: logs.logger },
    );
    const abort = new AbortController();
    informer.run(abort.signal);
    sink.replace([o('bad', '1'), o('good', '1')]);
    expect(informer.list()).toHaveLength(2);
    expect(logs.records.map((r) => r.msg)).toEqual(['informer event listener threw; the informer carries on']);
    abort.abort();
    sink.upsert(o('late', '2'));
    expect(informer.isStopped()).toBe(true);
    expect(informer.get({ namespace: 'ns', name: 'late' })).toBeUndefined();
    expect(() => informer.run(new AbortController().signal)).toThrow(/already run/);
  });

  it('runs a FakeListWatch as InformerWatchManager does', () => {
    const lw = new FakeListWatch(gvr, { listObjects: () => [o('a', '1')] });
    const rec = recorder(() => informer);
    const informer = new Informer(lw, rec);
    informer.run(new AbortController().signal);
    lw.reportWatchError(new Error('boom'));
    expect(rec.lines).toEqual(['add a initial cached', 'synced true', 'error boom']);
  });
});
