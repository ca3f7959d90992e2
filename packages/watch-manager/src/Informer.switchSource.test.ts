import { describe, expect, it } from '@jest/globals';
import { DeletedFinalStateUnknown, type ListWatch, type ListWatchSink, type PartialObjectMetadata } from '@protean/core';
import { fakeObject } from '@protean/core/testing';
import { Informer } from './Informer.js';

const gvr = { group: '', version: 'v1', resource: 'configmaps' };

/** A source that hands its sink and its run signal to the test. */
function source(): ListWatch & { sink: () => ListWatchSink; signal: () => AbortSignal } {
  let sink!: ListWatchSink;
  let signal!: AbortSignal;
  return {
    gvr,
    run: (s, sig) => {
      sink = s;
      signal = sig;
    },
    sink: () => sink,
    signal: () => signal,
  };
}

const meta = (name: string, rv: string): PartialObjectMetadata => fakeObject({ name, namespace: 'ns', resourceVersion: rv });
const full = (name: string, rv: string, data: string): PartialObjectMetadata =>
  fakeObject({ name, namespace: 'ns', resourceVersion: rv, content: { data: { k: data } } });

function rig() {
  const lines: string[] = [];
  const first = source();
  const informer = new Informer(first, {
    onAdd: (o) => lines.push(`add ${o.metadata.name}`),
    onUpdate: (old, o) => lines.push(`update ${o.metadata.name} ${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
    onDelete: (o) => lines.push(`delete ${o instanceof DeletedFinalStateUnknown ? o.key : o.metadata.name}`),
    onSourceSwitched: () => lines.push(`switched ${informer.holdsObjects()}`),
  });
  informer.run(new AbortController().signal);
  first.sink().replace([meta('a', '1'), meta('b', '2')]);
  lines.length = 0;
  return { informer, first, lines };
}

describe('Informer.switchSource', () => {
  it('keeps the old source feeding until the new one listed, then swaps unchanged objects in silently', () => {
    const { informer, first, lines } = rig();
    const next = source();

    informer.switchSource(next, true);
    next.sink().beginList();
    next.sink().upsert(full('a', '1', 'x'));
    first.sink().upsert(meta('b', '3')); // still the current source: applied now
    next.sink().upsert(full('b', '3', 'y'));
    expect(informer.holdsObjects()).toBe(false);
    expect(informer.get({ namespace: 'ns', name: 'a' })).not.toHaveProperty('data');

    next.sink().endList();

    expect(lines).toEqual(['update b 2->3', 'switched true']);
    expect(informer.holdsObjects()).toBe(true);
    expect(informer.get({ namespace: 'ns', name: 'a' })).toHaveProperty('data', { k: 'x' });
    expect(informer.get({ namespace: 'ns', name: 'b' })).toHaveProperty('data', { k: 'y' });
    expect(first.signal().aborted).toBe(true);
    // The old source is retired: what it still sends changes nothing.
    first.sink().upsert(meta('c', '9'));
    expect(informer.get({ namespace: 'ns', name: 'c' })).toBeUndefined();
  });

  it("delivers the new list's differences as a relist: changed objects as updates, vanished ones as tombstones", () => {
    const { informer, lines } = rig();
    const next = source();
    informer.switchSource(next, true);

    next.sink().replace([full('a', '5', 'x'), full('d', '6', 'z')]);

    expect(lines).toEqual(['delete ns/b', 'update a 1->5', 'add d', 'switched true']);
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'd']);
  });

  it('drops a switch still listing when switched again, and a failed list of the new source changes nothing', () => {
    const { informer, first, lines } = rig();
    const abandoned = source();
    informer.switchSource(abandoned, true);
    abandoned.sink().beginList();
    abandoned.sink().failed(new Error('boom'));
    abandoned.sink().endList(); // its list was dropped by the failure
    expect(informer.holdsObjects()).toBe(false);

    const back = source();
    informer.switchSource(back, false);
    expect(abandoned.signal().aborted).toBe(true);
    expect(first.signal().aborted).toBe(false);
    back.sink().replace([meta('a', '1'), meta('b', '2')]);

    expect(lines).toEqual(['switched false']);
    expect(first.signal().aborted).toBe(true);
  });

  it('remembers the last watch event version, where a new source lists from', () => {
    const { informer, first } = rig();
    expect(informer.lastEventResourceVersion()).toBeUndefined();
    first.sink().upsert(meta('a', '7'));
    first.sink().remove(meta('b', '8'));
    expect(informer.lastEventResourceVersion()).toBe('8');
  });
});

/** An informer synced over `first` ({a@1, b@2}), whose listener records every call with its flags. */
function flagged(synced = true) {
  const lines: string[] = [];
  const first = source();
  const informer = new Informer(first, {
    onAdd: (o, initial, takeover) => lines.push(`add ${o.metadata.name}${initial ? ' initial' : ''}${takeover ? ' takeover' : ''}`),
    onUpdate: (old, o) => lines.push(`update ${o.metadata.name} ${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
    onDelete: (o) => lines.push(`delete ${o instanceof DeletedFinalStateUnknown ? o.key : o.metadata.name}`),
    onError: (err) => lines.push(`error ${err.message}`),
    onSourceSwitched: () => lines.push('switched'),
  });
  informer.run(new AbortController().signal);
  if (synced) first.sink().replace([meta('a', '1'), meta('b', '2')]);
  lines.length = 0;
  return { informer, first, lines };
}

/** `next`, built by a sink's `switchSource`, with the resourceVersion it was built from. */
function builder(next: ListWatch): { build: (notOlderThan: string | undefined) => ListWatch; asked: (string | undefined)[] } {
  const asked: (string | undefined)[] = [];
  return { asked, build: (notOlderThan) => (asked.push(notOlderThan), next) };
}

const names = (informer: Informer): string[] =>
  informer
    .list()
    .map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)
    .sort();

describe('the switch a list/watch asks for through its sink (ListWatchSink.switchSource)', () => {
  it('builds the new list/watch from the last event applied, delivers its list as a takeover relist, and stops the old one only then', () => {
    const { informer, first, lines } = flagged();
    first.sink().upsert(meta('a', '7'));
    const next = source();
    const { build, asked } = builder(next);

    first.sink().switchSource(build, 'takeover');
    expect(asked).toEqual(['7']);
    expect(first.signal().aborted).toBe(false);
    // A new filter, not a change of what the cache holds.
    expect(informer.isSwitching()).toBe(false);

    next.sink().replace([meta('a', '7'), meta('b', '2'), meta('c', '3')]);
    expect(lines).toEqual(['update a 1->7', 'add c takeover']);
    expect(first.signal().aborted).toBe(true);
    expect(next.signal().aborted).toBe(false);
  });

  it('loses and duplicates no event across the swap: the old list/watch until the new list, the new one after', () => {
    const { informer, first, lines } = flagged();
    const next = source();
    first.sink().switchSource(builder(next).build, 'takeover');

    next.sink().beginList();
    next.sink().upsert(meta('a', '1'));
    first.sink().upsert(meta('b', '3')); // applied now, and listed again unchanged below
    first.sink().upsert(meta('c', '4'));
    first.sink().remove(meta('a', '5'));
    next.sink().remove(meta('a', '5'));
    next.sink().upsert(meta('b', '3'));
    next.sink().upsert(meta('c', '4'));
    next.sink().upsert(meta('d', '6')); // created after the old one's last event
    expect(lines).toEqual(['update b 2->3', 'add c', 'delete a']);
    next.sink().endList();
    first.sink().upsert(meta('d', '6')); // the old one, stopped, still sends: nothing
    first.sink().upsert(meta('e', '7'));
    next.sink().upsert(meta('e', '7'));

    expect(lines).toEqual(['update b 2->3', 'add c', 'delete a', 'add d takeover', 'add e']);
    expect(names(informer)).toEqual(['b@3', 'c@4', 'd@6', 'e@7']);
  });

  it('leaves the old list/watch feeding when the new one fails before its list, a list in progress included, and shows the failure in health', () => {
    const { informer, first, lines } = flagged();
    const next = source();
    first.sink().switchSource(builder(next).build, 'takeover');
    first.sink().beginList();
    first.sink().upsert(meta('a', '1'));

    next.sink().beginList();
    next.sink().failed(new Error('shardSelector refused'));
    next.sink().endList(); // its list was dropped by the failure
    first.sink().upsert(meta('b', '3'));
    first.sink().endList();

    expect(lines).toEqual(['error shardSelector refused', 'update b 2->3']);
    expect(names(informer)).toEqual(['a@1', 'b@3']);
    expect(first.signal().aborted).toBe(false);
    expect(informer.health().failing).toMatchObject({ cause: 'shardSelector refused', consecutive: 1 });

    next.sink().replace([meta('a', '1')]);
    expect(first.signal().aborted).toBe(true);
    expect(informer.health().failing).toBeUndefined();
  });

  it('does nothing asked by the current list/watch while a switch to full objects lists; asked by that one, replaces it and keeps its objects', () => {
    const { informer, first, lines } = flagged();
    const objects = source();
    informer.switchSource(objects, true);
    const ignored = builder(source());
    first.sink().switchSource(ignored.build, 'takeover');
    expect(ignored.asked).toEqual([]);

    const rebuilt = source();
    objects.sink().switchSource(builder(rebuilt).build, 'takeover');
    expect(objects.signal().aborted).toBe(true);
    expect(first.signal().aborted).toBe(false);
    expect(informer.isSwitching()).toBe(true);

    rebuilt.sink().replace([full('a', '1', 'x'), full('c', '3', 'z')]);
    expect(lines).toEqual(['delete ns/b', 'add c takeover', 'switched']);
    expect(informer.holdsObjects()).toBe(true);
    expect(informer.get({ namespace: 'ns', name: 'a' })).toHaveProperty('data', { k: 'x' });
    expect(first.signal().aborted).toBe(true);
  });

  it('before the first sync takes over at once, stopping the old list/watch only once the new one runs; its list is the initial list', () => {
    const { informer, first, lines } = flagged(false);
    first.sink().beginList();
    first.sink().upsert(meta('a', '1'));
    let oldStoppedWhenRun: boolean | undefined;
    const next = source();
    const run = next.run;
    next.run = (sink, signal) => {
      oldStoppedWhenRun = first.signal().aborted;
      run(sink, signal);
    };

    first.sink().switchSource(builder(next).build, 'takeover');
    expect(oldStoppedWhenRun).toBe(false);
    expect(first.signal().aborted).toBe(true);
    first.sink().endList(); // its list went with it
    expect(informer.hasSynced()).toBe(false);

    next.sink().replace([meta('b', '2')]);
    expect(lines).toEqual(['add b initial']);
    expect(informer.hasSynced()).toBe(true);
  });
});
