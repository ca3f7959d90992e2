import { describe, expect, it } from '@jest/globals';
import { DeletedFinalStateUnknown, type ResourceEventHandler } from '@protean/core';
import { FakeClock, FakeInformer, FakeInformerSource, fakeObject } from '@protean/core/testing';
import { assignShards } from './assignShards.js';
import { fnv1a64 } from './fnv1a64.js';
import { FULL_RANGE, inRanges, type HashRange } from './HashRange.js';
import { ShardedInformerSource, type RangeInformerSourceFactory } from './ShardedInformerSource.js';
import { ShardingConfigError } from './ShardingConfigError.js';

const gvr = { group: '', version: 'v1', resource: 'configmaps' };
const NAMESPACES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'team-delta', 'payments'];

type Seen = [string, string, ...unknown[]];

function recorder(seen: Seen[]): ResourceEventHandler {
  const id = (o: { metadata: { namespace?: string; name: string } }): string => `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    onAdd: (obj, initial) => void seen.push(['add', id(obj), initial]),
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

function running(source: ShardedInformerSource): ReturnType<ShardedInformerSource['createInformer']> {
  const informer = source.createInformer(gvr, { resyncPeriodMs: 0 });
  informer.run(new AbortController().signal);
  return informer;
}

describe('ShardedInformerSource', () => {
  it("shows each replica only its share: list, get and the initial list; the shares' union is everything", () => {
    const union: string[] = [];
    for (const m of ['r0', 'r1', 'r2']) {
      const informer = running(new ShardedInformerSource(cluster(), { key: 'namespace', ranges: rangesOf(m) }));
      const seen: Seen[] = [];
      informer.addEventHandler(recorder(seen));
      const listed = informer
        .list()
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
        .sort();
      expect(listed).toEqual(inShare(m).sort());
      expect(seen.map((s) => s[1]).sort()).toEqual(listed);
      expect(seen.every((s) => s[0] === 'add')).toBe(true);
      for (const ns of NAMESPACES) {
        expect(informer.get({ namespace: ns, name: 'cm' }) !== undefined).toBe(inShare(m).includes(`${ns}/cm`));
      }
      union.push(...listed);
    }
    expect(union.sort()).toEqual(NAMESPACES.map((ns) => `${ns}/cm`).sort());
  });

  it('filters live events by the hash of the namespace', () => {
    const fake = new FakeInformerSource();
    const mine = rangesOf('r0');
    const source = new ShardedInformerSource(fake, { key: 'namespace', ranges: mine });
    const informer = running(source);
    const seen: Seen[] = [];
    informer.addEventHandler(recorder(seen));
    const inside = inShare('r0')[0]!.split('/')[0]!;
    const outside = inShare('r1')[0]!.split('/')[0]!;
    fake.add(gvr, { namespace: inside, name: 'x' });
    fake.add(gvr, { namespace: outside, name: 'x' });
    fake.update(gvr, { namespace: inside, name: 'x', generation: 2 });
    fake.update(gvr, { namespace: outside, name: 'x', generation: 2 });
    fake.delete(gvr, { namespace: outside, name: 'x' });
    fake.delete(gvr, { namespace: inside, name: 'x' }, { finalStateUnknown: true });
    expect(seen).toEqual([
      ['add', `${inside}/x`, false],
      ['update', `${inside}/x`],
      ['delete', `${inside}/x`],
    ]);
  });

  it('on a range change, delivers deletes for what left and adds for what entered', () => {
    const source = new ShardedInformerSource(cluster(), { key: 'namespace', ranges: rangesOf('r0') });
    const informer = running(source);
    const seen: Seen[] = [];
    informer.addEventHandler(recorder(seen));
    seen.length = 0;
    source.setRanges(rangesOf('r1'));
    const deleted = seen.filter((s) => s[0] === 'delete').map((s) => s[1]);
    const added = seen.filter((s) => s[0] === 'add').map((s) => s[1]);
    expect(deleted.sort()).toEqual(inShare('r0').sort());
    expect(added.sort()).toEqual(inShare('r1').sort());
    expect(seen.filter((s) => s[0] === 'add').every((s) => s[2] === false)).toBe(true);
    expect(source.ranges()).toEqual(rangesOf('r1'));

    seen.length = 0;
    source.setRanges([FULL_RANGE]);
    expect(seen.map((s) => s[0])).toEqual(Array(inShare('r0').length + inShare('r2').length).fill('add'));
    expect(informer.list()).toHaveLength(NAMESPACES.length);
    seen.length = 0;
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

  it('stops delivering to a removed handler, passes sync, health and errors through, and skips stopped informers', () => {
    const fake = cluster();
    const source = new ShardedInformerSource(fake, { key: 'namespace', ranges: rangesOf('r0') });
    const informer = source.createInformer(gvr, { resyncPeriodMs: 0 });
    expect(informer.hasSynced()).toBe(false);
    const stop = new AbortController();
    informer.run(stop.signal);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.health().synced).toBe(true);
    const errors: Error[] = [];
    informer.setWatchErrorHandler((e) => void errors.push(e));
    fake.informer(gvr)!.reportWatchError(new Error('boom'));
    expect(errors.map((e) => e.message)).toEqual(['boom']);
    const seen: Seen[] = [];
    const reg = informer.addEventHandler(recorder(seen));
    informer.removeEventHandler(reg);
    seen.length = 0;
    source.setRanges([FULL_RANGE]);
    expect(seen).toEqual([]);
    stop.abort();
    expect(informer.isStopped()).toBe(true);
    expect(() => source.setRanges([])).not.toThrow();
  });

  it('with a factory (server-side mode), rebuilds informers when the ranges widen and moves the handlers once the new one listed', () => {
    const fake = cluster();
    const clock = new FakeClock();
    const built: FakeInformer[] = [];
    let autoSync = true;
    // A server that filters: each informer lists only the objects of the ranges it was built for.
    const factory: RangeInformerSourceFactory = (ranges) => ({
      createInformer: (g) => {
        const informer = new FakeInformer(g, {
          autoSync,
          listObjects: () => fake.objects(g).filter((o) => inRanges(fnv1a64(o.metadata.namespace ?? ''), ranges)),
        });
        built.push(informer);
        return informer;
      },
    });
    const source = new ShardedInformerSource(factory, { key: 'namespace', ranges: rangesOf('r0'), clock });
    expect(source.reselects).toBe(true);
    const informer = running(source);
    const seen: Seen[] = [];
    informer.addEventHandler(recorder(seen));
    const ids = (kind: string): string[] =>
      seen
        .filter((e) => e[0] === kind)
        .map((e) => e[1])
        .sort();
    expect(ids('add')).toEqual(inShare('r0').sort());

    // Widening: a new informer lists (here: slowly); meanwhile the old one serves what is left of the share.
    autoSync = false;
    seen.length = 0;
    source.setRanges(rangesOf('r1'));
    expect(built).toHaveLength(2);
    expect(ids('delete')).toEqual(inShare('r0').sort());
    expect(informer.list()).toEqual([]);
    expect(built[0]!.isRunning()).toBe(true);
    built[1]!.markSynced();
    clock.advance(50);
    expect(built[0]!.isStopped()).toBe(true);
    expect(ids('add')).toEqual(inShare('r1').sort());
    expect(informer.list().map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(expect.arrayContaining(inShare('r1')));

    // Widening with an informer that lists at once: objects in both shares, unchanged, are not delivered again; none as deletes.
    autoSync = true;
    seen.length = 0;
    const both = [...rangesOf('r0'), ...rangesOf('r1')].sort((a, b) => (a.start < b.start ? -1 : 1));
    source.setRanges(both);
    clock.advance(50);
    expect(built).toHaveLength(3);
    expect(ids('add')).toEqual(inShare('r0').sort());
    expect(ids('update')).toEqual([]);
    expect(ids('delete')).toEqual([]);

    // Narrowing re-selects too: what left is deleted at once, what stays is not delivered again.
    seen.length = 0;
    source.setRanges(rangesOf('r0'));
    expect(ids('delete')).toEqual(inShare('r1').sort());
    clock.advance(50);
    expect(built).toHaveLength(4);
    expect(built[2]!.isStopped()).toBe(true);
    expect(seen.filter((e) => e[0] !== 'delete')).toEqual([]);
    expect(ids('delete')).toEqual(inShare('r1').sort());
    const ns = inShare('r0')[0]!.split('/')[0]!;
    built[3]!.add(fakeObject({ namespace: ns, name: 'new' }));
    expect(seen.at(-1)).toEqual(['add', `${ns}/new`, false]);
  });

  it('with a factory, a shrunk share narrows the server-side cache of running informers and builds later informers for it', () => {
    const fake = cluster();
    const clock = new FakeClock();
    const builtFor: (readonly HashRange[])[] = [];
    const factory: RangeInformerSourceFactory = (ranges) => ({
      createInformer: (g) => {
        builtFor.push(ranges);
        return new FakeInformer(g, {
          listObjects: () => fake.objects(g).filter((o) => inRanges(fnv1a64(o.metadata.namespace ?? ''), ranges)),
        });
      },
    });
    const source = new ShardedInformerSource(factory, { key: 'namespace', clock });
    source.setRanges([FULL_RANGE]);
    const first = running(source);
    const seen: Seen[] = [];
    first.addEventHandler(recorder(seen));
    expect(seen).toHaveLength(NAMESPACES.length);
    const keys = (objs: readonly { metadata: { namespace?: string; name: string } }[]): string[] =>
      objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
    expect(keys(source.cachedObjects()[0]!.objects)).toHaveLength(NAMESPACES.length);

    // Shrink to r0's share: what left is deleted at once; once the narrower informer listed, only the share is cached.
    seen.length = 0;
    source.setRanges(rangesOf('r0'));
    expect(seen.map((e) => e[0])).toEqual(new Array(NAMESPACES.length - inShare('r0').length).fill('delete'));
    clock.advance(50);
    expect(builtFor.at(-1)).toEqual(rangesOf('r0'));
    expect(seen.filter((e) => e[0] !== 'delete')).toEqual([]);
    const cached = source.cachedObjects();
    expect(cached).toHaveLength(1);
    expect(cached[0]!.informers).toBe(1);
    expect(keys(cached[0]!.objects)).toEqual(inShare('r0').sort());
    expect(keys(first.list())).toEqual(inShare('r0').sort());

    // An informer first created after the shrink (a child informer) is built for the current share.
    const secrets = { group: '', version: 'v1', resource: 'secrets' };
    for (const ns of NAMESPACES) fake.add(secrets, { namespace: ns, name: 's' });
    const later = source.createInformer(secrets, { resyncPeriodMs: 0 });
    later.run(new AbortController().signal);
    expect(builtFor.at(-1)).toEqual(rangesOf('r0'));
    expect(source.cachedObjects().find((c) => c.gvr.resource === 'secrets')!.objects).toHaveLength(inShare('r0').length);
  });

  it('counts what the inner informers cache per resource, both informers while a re-selected one lists, and skips stopped ones', () => {
    const fake = cluster();
    const clock = new FakeClock();
    const built: FakeInformer[] = [];
    const factory: RangeInformerSourceFactory = (ranges) => ({
      createInformer: (g) => {
        const informer = new FakeInformer(g, {
          autoSync: built.length === 0,
          listObjects: () => fake.objects(g).filter((o) => inRanges(fnv1a64(o.metadata.namespace ?? ''), ranges)),
        });
        built.push(informer);
        return informer;
      },
    });
    const source = new ShardedInformerSource(factory, { key: 'namespace', ranges: rangesOf('r0'), clock });
    expect(source.cachedObjects()).toEqual([]);
    const stop = new AbortController();
    const informer = source.createInformer(gvr, { resyncPeriodMs: 0 });
    expect(source.cachedObjects()).toEqual([{ gvr, objects: [], informers: 0 }]);
    informer.run(stop.signal);
    expect(source.cachedObjects()[0]!.objects).toHaveLength(inShare('r0').length);
    source.setRanges(rangesOf('r1'));
    const during = source.cachedObjects()[0]!;
    expect(during.informers).toBe(2);
    // The old informer still holds r0's share; the new one has listed nothing yet.
    expect(during.objects).toHaveLength(inShare('r0').length);
    built[1]!.markSynced();
    clock.advance(50);
    expect(source.cachedObjects()[0]!.informers).toBe(1);
    expect(source.cachedObjects()[0]!.objects).toHaveLength(inShare('r1').length);
    stop.abort();
    expect(source.cachedObjects()).toEqual([]);

    // Client-side: the inner informers cache everything.
    const client = new ShardedInformerSource(cluster(), { key: 'namespace', ranges: rangesOf('r2') });
    running(client);
    expect(client.cachedObjects()[0]!.objects).toHaveLength(NAMESPACES.length);
  });

  it('refuses a bad key or bad ranges', () => {
    expect(() => new ShardedInformerSource(new FakeInformerSource(), { key: 'name' as never })).toThrow(ShardingConfigError);
    const source = new ShardedInformerSource(new FakeInformerSource(), { key: 'uid' });
    expect(() => source.setRanges([{ start: 2n, end: 1n }])).toThrow(ShardingConfigError);
  });
});
