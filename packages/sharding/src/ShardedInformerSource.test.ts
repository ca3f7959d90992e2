import { describe, expect, it } from '@jest/globals';
import {
  DeletedFinalStateUnknown,
  type GroupVersionResource,
  type InformerSource,
  type ListWatchSink,
  type PartialObjectMetadata,
  type ResourceEventHandler,
} from '@protean/core';
import { FakeInformerSource, FakeListWatch, FakeStatusError, fakeObject, flushMicrotasks } from '@protean/core/testing';
import { Informer } from '@protean/watch-manager';
import { assignShards } from './assignShards.js';
import { fnv1a64 } from './fnv1a64.js';
import { FULL_RANGE, inRanges, type HashRange } from './HashRange.js';
import { ShardedInformerSource, type RangeInformerSourceFactory } from './ShardedInformerSource.js';
import { ShardingConfigError } from './ShardingConfigError.js';

/*
 * The filter in front of the real informer engine (`Informer` of
 * @protean/watch-manager, as InformerWatchManager runs it), over fake
 * list/watches.
 */

const gvr = { group: '', version: 'v1', resource: 'configmaps' };
const NAMESPACES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'team-delta', 'payments'];

type Seen = [string, string, ...unknown[]];

function recorder(seen: Seen[]): ResourceEventHandler {
  const id = (o: { metadata: { namespace?: string; name: string } }): string => `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    onAdd: (obj, initial, takeover) => void seen.push(['add', id(obj), initial, takeover === true]),
    onUpdate: (_o, n) => void seen.push(['update', id(n)]),
    onDelete: (obj) => void seen.push(['delete', obj instanceof DeletedFinalStateUnknown ? obj.key : id(obj)]),
  };
}

function cluster(): FakeInformerSource {
  const fake = new FakeInformerSource();
  for (const ns of NAMESPACES) fake.add(gvr, { namespace: ns, name: 'cm' });
  return fake;
}

const shares = assignShards(['r0', 'r1', 'r2'], NAMESPACES);
const rangesOf = (m: string): readonly HashRange[] => shares.get(m)!;
const inShare = (m: string): string[] => NAMESPACES.filter((ns) => inRanges(fnv1a64(ns), rangesOf(m))).map((ns) => `${ns}/cm`);
const keys = (objs: readonly { metadata: { namespace?: string; name: string } }[]): string[] =>
  objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();

/** The engine over `source`'s list/watch of `g`, running, telling `seen`. */
function running(source: InformerSource, seen: Seen[] = [], g: GroupVersionResource = gvr, stop = new AbortController()): Informer {
  const informer = new Informer(source.createListWatch(g), recorder(seen));
  informer.run(stop.signal);
  return informer;
}

/** A server that filters: each list/watch lists only the objects of the ranges it was built for. */
function filteringServer(
  fake: FakeInformerSource,
  built: FakeListWatch[],
  autoSync: () => boolean = () => true,
): RangeInformerSourceFactory {
  return (ranges) => ({
    createListWatch: (g) => {
      const lw = new FakeListWatch(g, {
        autoSync: autoSync(),
        listObjects: () => fake.objects(g).filter((o) => inRanges(fnv1a64(o.metadata.namespace ?? ''), ranges)),
      });
      built.push(lw);
      return lw;
    },
  });
}

describe('ShardedInformerSource', () => {
  it("lets through only each replica's share: the cache and the initial list; the shares' union is everything", () => {
    const union: string[] = [];
    for (const m of ['r0', 'r1', 'r2']) {
      const seen: Seen[] = [];
      const informer = running(new ShardedInformerSource(cluster(), { key: 'namespace', ranges: rangesOf(m) }), seen);
      const listed = keys(informer.list());
      expect(listed).toEqual(inShare(m).sort());
      expect(seen.map((s) => s[1]).sort()).toEqual(listed);
      expect(seen.every((s) => s[0] === 'add' && s[2] === true)).toBe(true);
      for (const ns of NAMESPACES) {
        expect(informer.get({ namespace: ns, name: 'cm' }) !== undefined).toBe(inShare(m).includes(`${ns}/cm`));
      }
      union.push(...listed);
    }
    expect(union.sort()).toEqual(NAMESPACES.map((ns) => `${ns}/cm`).sort());
  });

  it('filters live events by the hash of the namespace', () => {
    const fake = new FakeInformerSource();
    const source = new ShardedInformerSource(fake, { key: 'namespace', ranges: rangesOf('r0') });
    const seen: Seen[] = [];
    running(source, seen);
    const inside = inShare('r0')[0]!.split('/')[0]!;
    const outside = inShare('r1')[0]!.split('/')[0]!;
    fake.add(gvr, { namespace: inside, name: 'x' });
    fake.add(gvr, { namespace: outside, name: 'x' });
    fake.update(gvr, { namespace: inside, name: 'x', generation: 2 });
    fake.update(gvr, { namespace: outside, name: 'x', generation: 2 });
    fake.delete(gvr, { namespace: outside, name: 'x' });
    fake.delete(gvr, { namespace: inside, name: 'x' }, { finalStateUnknown: true });
    expect(seen).toEqual([
      ['add', `${inside}/x`, false, false],
      ['update', `${inside}/x`],
      ['delete', `${inside}/x`],
    ]);
  });

  it('on a range change, deletes what left at once and lists again: adds for what entered, nothing for what stayed', () => {
    const fake = cluster();
    const source = new ShardedInformerSource(fake, { key: 'namespace', ranges: rangesOf('r0') });
    const seen: Seen[] = [];
    const informer = running(source, seen);
    seen.length = 0;
    source.setRanges(rangesOf('r1'));
    expect(
      seen
        .filter((s) => s[0] === 'delete')
        .map((s) => s[1])
        .sort(),
    ).toEqual(inShare('r0').sort());
    const added = seen.filter((s) => s[0] === 'add');
    expect(added.map((s) => s[1]).sort()).toEqual(inShare('r1').sort());
    expect(added.every((s) => s[2] === false)).toBe(true);
    // Entered through the range change: flagged as taken over, not as changed.
    expect(added.every((s) => s[3] === true)).toBe(true);
    expect(source.ranges()).toEqual(rangesOf('r1'));
    // The relist came from a new list/watch of the same source; the old one stopped.
    expect(fake.runningInformers(gvr)).toHaveLength(1);

    seen.length = 0;
    source.setRanges([FULL_RANGE]);
    expect(seen.map((s) => s[0])).toEqual(Array(inShare('r0').length + inShare('r2').length).fill('add'));
    expect(informer.list()).toHaveLength(NAMESPACES.length);
    seen.length = 0;
    source.setRanges([FULL_RANGE]);
    expect(seen).toEqual([]);
    source.setRanges([]);
    expect(seen.filter((s) => s[0] === 'delete')).toHaveLength(NAMESPACES.length);
    expect(informer.list()).toEqual([]);
  });

  it('shards on the uid too, and cluster-scoped objects hash the empty namespace', () => {
    const fake = new FakeInformerSource();
    const objs = Array.from({ length: 20 }, (_, i) => fake.add(gvr, { namespace: 'ns', name: `o${i}`, uid: `uid-${i}` }));
    const a = assignShards(['r0', 'r1'], []);
    const counts = ['r0', 'r1'].map((m) => running(new ShardedInformerSource(fake, { key: 'uid', ranges: a.get(m)! })).list().length);
    expect(counts[0]! + counts[1]!).toBe(objs.length);
    const byNs = new ShardedInformerSource(fake, { key: 'namespace', ranges: [{ start: fnv1a64(''), end: fnv1a64('') + 1n }] });
    fake.add(gvr, { name: 'cluster-scoped' });
    expect(
      running(byNs)
        .list()
        .map((o) => o.metadata.name),
    ).toEqual(['cluster-scoped']);
  });

  it('passes sync and failures through, changes nothing once stopped, and skips stopped list/watches', () => {
    const fake = cluster();
    const source = new ShardedInformerSource(fake, { key: 'namespace', ranges: rangesOf('r0') });
    const errors: string[] = [];
    const seen: Seen[] = [];
    const informer = new Informer(source.createListWatch(gvr), { ...recorder(seen), onError: (e) => void errors.push(e.message) });
    expect(informer.hasSynced()).toBe(false);
    const stop = new AbortController();
    informer.run(stop.signal);
    expect(informer.hasSynced()).toBe(true);
    fake.informer(gvr)!.reportWatchError(new FakeStatusError(500));
    expect(errors).toHaveLength(1);
    expect(informer.health().failing?.status).toBe(500);
    stop.abort();
    seen.length = 0;
    fake.add(gvr, { namespace: inShare('r0')[0]!.split('/')[0]!, name: 'late' });
    expect(() => source.setRanges([FULL_RANGE])).not.toThrow();
    expect(seen).toEqual([]);
    expect(source.cachedObjects()).toEqual([]);
  });

  it('with a factory (server-side mode), a new list/watch lists the new share while the old one serves, then replaces it', () => {
    const fake = cluster();
    const built: FakeListWatch[] = [];
    let autoSync = true;
    const source = new ShardedInformerSource(
      filteringServer(fake, built, () => autoSync),
      { key: 'namespace', ranges: rangesOf('r0') },
    );
    expect(source.reselects).toBe(true);
    const seen: Seen[] = [];
    const informer = running(source, seen);
    const ids = (kind: string): string[] =>
      seen
        .filter((e) => e[0] === kind)
        .map((e) => e[1])
        .sort();
    expect(ids('add')).toEqual(inShare('r0').sort());

    // Moving to r1: r0's share is deleted at once; a new list/watch lists (here: slowly); the old one still runs.
    autoSync = false;
    seen.length = 0;
    source.setRanges(rangesOf('r1'));
    expect(built).toHaveLength(2);
    expect(ids('delete')).toEqual(inShare('r0').sort());
    expect(informer.list()).toEqual([]);
    expect(built[0]!.isRunning()).toBe(true);
    expect(source.cachedObjects()[0]!.informers).toBe(2);
    built[1]!.markSynced();
    expect(built[0]!.isStopped()).toBe(true);
    expect(ids('add')).toEqual(inShare('r1').sort());
    expect(keys(informer.list())).toEqual(inShare('r1').sort());
    expect(source.cachedObjects()[0]!.informers).toBe(1);

    // Widening with a list/watch that lists at once: objects in both shares, unchanged, are not delivered again.
    autoSync = true;
    seen.length = 0;
    const both = [...rangesOf('r0'), ...rangesOf('r1')].sort((a, b) => (a.start < b.start ? -1 : 1));
    source.setRanges(both);
    expect(built).toHaveLength(3);
    expect(ids('add')).toEqual(inShare('r0').sort());
    expect(ids('update')).toEqual([]);
    expect(ids('delete')).toEqual([]);

    // Narrowing lists again too: what left is deleted at once, what stays is not delivered again.
    seen.length = 0;
    source.setRanges(rangesOf('r0'));
    expect(built).toHaveLength(4);
    expect(built[2]!.isStopped()).toBe(true);
    expect(seen.filter((e) => e[0] !== 'delete')).toEqual([]);
    expect(ids('delete')).toEqual(inShare('r1').sort());
    const ns = inShare('r0')[0]!.split('/')[0]!;
    built[3]!.add(fakeObject({ namespace: ns, name: 'new' }));
    expect(seen.at(-1)).toEqual(['add', `${ns}/new`, false, false]);
    // The server sent only the share: the filter dropped nothing.
    expect(source.cachedObjects()[0]!.filteredOut).toBe(0);
  });

  it('with a factory, builds list/watches first created after a change for the current share', () => {
    const fake = cluster();
    const built: FakeListWatch[] = [];
    const source = new ShardedInformerSource(filteringServer(fake, built), { key: 'namespace' });
    source.setRanges(rangesOf('r0'));
    const secrets = { group: '', version: 'v1', resource: 'secrets' };
    for (const ns of NAMESPACES) fake.add(secrets, { namespace: ns, name: 's' });
    const lw = source.createListWatch(secrets);
    // Not running yet: a change rebuilds it for the new ranges, without listing.
    source.setRanges([FULL_RANGE]);
    source.setRanges(rangesOf('r1'));
    expect(built.filter((b) => b.isRunning())).toEqual([]);
    const informer = new Informer(lw, {});
    informer.run(new AbortController().signal);
    expect(keys(informer.list())).toEqual(
      inShare('r1')
        .map((k) => k.replace('/cm', '/s'))
        .sort(),
    );
    expect(source.cachedObjects().find((c) => c.gvr.resource === 'secrets')).toMatchObject({ informers: 1, filteredOut: 0 });
  });

  it('counts what the informers cache per resource, and what a client-side filter drops', () => {
    const client = new ShardedInformerSource(cluster(), { key: 'namespace', ranges: rangesOf('r2') });
    expect(client.cachedObjects()).toEqual([]);
    const lw = client.createListWatch(gvr);
    expect(client.cachedObjects()).toEqual([{ gvr, objects: [], informers: 0, filteredOut: 0 }]);
    const informer = new Informer(lw, {});
    informer.run(new AbortController().signal);
    const [cached] = client.cachedObjects();
    expect(keys(cached!.objects)).toEqual(inShare('r2').sort());
    expect(cached!.filteredOut).toBe(NAMESPACES.length - inShare('r2').length);
  });

  it('drops what left the share at once also while a relist is in progress, so it does not come back when the list ends', () => {
    const lws: FakeListWatch[] = [];
    const objects: PartialObjectMetadata[] = [];
    let sinkOf: ListWatchSink | undefined;
    // A source whose first list/watch lets the test drive a streamed relist by hand; later ones list only when told.
    const inner: InformerSource = {
      createListWatch: (g) => {
        const lw = new FakeListWatch(g, { autoSync: lws.length === 0, listObjects: () => objects });
        lws.push(lw);
        return { gvr: g, run: (sink, signal) => ((sinkOf ??= sink), lw.run(sink, signal)) };
      },
    };
    const mine = inShare('r0')[0]!.split('/')[0]!;
    const theirs = inShare('r1')[0]!.split('/')[0]!;
    const source = new ShardedInformerSource(inner, {
      key: 'namespace',
      ranges: [...rangesOf('r0'), ...rangesOf('r1')].sort((a, b) => (a.start < b.start ? -1 : 1)),
    });
    const seen: Seen[] = [];
    const informer = running(source, seen);
    objects.push(
      fakeObject({ namespace: mine, name: 'x', resourceVersion: '5' }),
      fakeObject({ namespace: theirs, name: 'y', resourceVersion: '6' }),
    );
    for (const o of objects) lws[0]!.add(o);
    // The first list/watch relists (a stream), and the share narrows in the middle of it.
    sinkOf!.beginList();
    sinkOf!.upsert(fakeObject({ namespace: mine, name: 'x', resourceVersion: '5' }));
    sinkOf!.upsert(fakeObject({ namespace: theirs, name: 'y', resourceVersion: '6' }));
    source.setRanges(rangesOf('r0'));
    expect(seen.at(-1)).toEqual(['delete', `${theirs}/y`]);
    expect(keys(informer.list())).toEqual([`${mine}/x`]);
    sinkOf!.endList();
    expect(keys(informer.list())).toEqual([`${mine}/x`]);
    // The restarted list/watch lists: `x` is unchanged, so nothing more is delivered.
    const delivered = seen.length;
    lws[1]!.markSynced();
    expect(seen.length).toBe(delivered);
    expect(keys(informer.list())).toEqual([`${mine}/x`]);
  });

  it('restarts a list/watch from no older a state than the last event it passed on, and shows a failing restart in health', () => {
    const fake = cluster();
    const asked: (string | undefined)[] = [];
    const built: FakeListWatch[] = [];
    const failing = new FakeStatusError(400, 'shardSelector: invalid');
    let fail = false;
    const source = new ShardedInformerSource(
      (ranges) => ({
        createListWatch: (g, options) => {
          asked.push(options?.notOlderThan);
          const listObjects = (): PartialObjectMetadata[] =>
            fake.objects(g).filter((o) => inRanges(fnv1a64(o.metadata.namespace ?? ''), ranges));
          const lw = new FakeListWatch(g, fail ? { syncError: failing, listObjects } : { listObjects });
          built.push(lw);
          return Object.assign(lw, {
            health: () => ({
              idleMs: 0,
              failing:
                lw.reportedErrors.length > 0
                  ? {
                      forMs: 0,
                      consecutive: lw.reportedErrors.length,
                      cause: failing.message,
                      status: 400,
                      reason: undefined,
                      retryInMs: undefined,
                    }
                  : undefined,
            }),
          });
        },
      }),
      { key: 'namespace', ranges: rangesOf('r0') },
    );
    const informer = running(source);
    const ns = inShare('r0')[0]!.split('/')[0]!;
    built[0]!.update(fake.update(gvr, { namespace: ns, name: 'cm', generation: 2, resourceVersion: '4242' }));
    fail = true;
    source.setRanges(rangesOf('r1'));
    expect(asked).toEqual([undefined, '4242']);
    return flushMicrotasks().then(() => {
      expect(informer.health().failing).toMatchObject({ status: 400, cause: failing.message });
      expect(source.cachedObjects()[0]!.informers).toBe(2);
    });
  });

  it('on a range change while the informer switches to full objects, rebuilds that switch for the new share and keeps the objects', () => {
    const fake = cluster();
    const built: FakeListWatch[] = [];
    let autoSync = true;
    const source = new ShardedInformerSource(
      (ranges) => ({
        createListWatch: (g, options) => {
          const listObjects = (): PartialObjectMetadata[] =>
            fake.objects(g).filter((o) => inRanges(fnv1a64(o.metadata.namespace ?? ''), ranges));
          const lw = new FakeListWatch(g, {
            autoSync,
            listObjects,
            ...(options?.objects === undefined ? {} : { objects: options.objects }),
          });
          built.push(lw);
          return lw;
        },
      }),
      { key: 'namespace', ranges: rangesOf('r0') },
    );
    const seen: Seen[] = [];
    const informer = running(source, seen);
    autoSync = false;
    informer.switchSource(source.createListWatch(gvr, { objects: {} }), true);
    seen.length = 0;

    source.setRanges(rangesOf('r1'));
    // The metadata list/watch is not restarted (the switch replaces it anyway): the switch is, for the new share.
    expect(built).toHaveLength(3);
    expect(built[0]!.isRunning()).toBe(true);
    expect(built[1]!.isStopped()).toBe(true);
    expect(built[2]!.holdsObjects).toBe(true);
    expect(informer.isSwitching()).toBe(true);
    expect(keys(informer.list())).toEqual([]);

    built[2]!.markSynced();
    expect(informer.holdsObjects()).toBe(true);
    expect(keys(informer.list())).toEqual(inShare('r1').sort());
    expect(seen.filter((e) => e[0] === 'add')).toEqual(inShare('r1').map((k) => ['add', k, false, true]));
    expect(built[0]!.isStopped()).toBe(true);
    expect(source.cachedObjects()).toMatchObject([{ gvr, informers: 1 }]);
  });

  it('refuses a bad key or bad ranges', () => {
    expect(() => new ShardedInformerSource(new FakeInformerSource(), { key: 'name' as never })).toThrow(ShardingConfigError);
    const source = new ShardedInformerSource(new FakeInformerSource(), { key: 'uid' });
    expect(() => source.setRanges([{ start: 2n, end: 1n }])).toThrow(ShardingConfigError);
  });
});
