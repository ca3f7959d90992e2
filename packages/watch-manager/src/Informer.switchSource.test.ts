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
