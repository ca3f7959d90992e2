import { describe, expect, it } from '@jest/globals';
import type { CachedObject, ListWatch, ListWatchSink, PartialObjectMetadata } from '@protean/core';
import { fakeObject } from '@protean/core/testing';
import { Informer } from './Informer.js';

/* Secondary indexes of the informer's cache, kept true on add, update, delete and relist. */

const gvr = { group: '', version: 'v1', resource: 'configmaps' };

function source(): ListWatch & { sink: () => ListWatchSink } {
  let sink!: ListWatchSink;
  return { gvr, delivers: 'objects', run: (s) => void (sink = s), sink: () => sink };
}

const cm = (name: string, rv: string, secret: string, owner?: string): PartialObjectMetadata =>
  fakeObject({
    name,
    namespace: 'ns',
    resourceVersion: rv,
    content: { data: { secret } },
    ...(owner === undefined ? {} : { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: owner, uid: `uid-${owner}` }] }),
  });

const bySecret = (obj: CachedObject): string[] => [String((obj['data'] as Record<string, string>)['secret'])];
const names = (objs: readonly PartialObjectMetadata[] | undefined): string[] | undefined => objs?.map((o) => o.metadata.name).sort();

function run(): { informer: Informer; feed: ListWatch & { sink: () => ListWatchSink } } {
  const feed = source();
  const informer = new Informer(feed, {}, { holdsObjects: true });
  informer.run(new AbortController().signal);
  return { informer, feed };
}

describe('Informer secondary indexes', () => {
  it('finds objects by an index defined before or after the list, kept true on add, update and delete', () => {
    const { informer, feed } = run();
    feed.sink().replace([cm('a', '1', 's1', 'p'), cm('b', '2', 's1')]);
    expect(informer.defineIndex('secret', bySecret)).toBe(true);
    expect(names(informer.byIndex('secret', 's1'))).toEqual(['a', 'b']);

    feed.sink().upsert(cm('b', '3', 's2')); // moved
    feed.sink().upsert(cm('c', '4', 's2')); // added
    feed.sink().remove(cm('a', '5', 's1')); // deleted
    expect(names(informer.byIndex('secret', 's1'))).toEqual([]);
    expect(names(informer.byIndex('secret', 's2'))).toEqual(['b', 'c']);
    expect(informer.indexValues('secret', cm('x', '9', 's9') as CachedObject)).toEqual(['s9']);
    // The same name, another function: refused; the same function: fine.
    expect(informer.defineIndex('secret', (o) => bySecret(o))).toBe(false);
    expect(informer.defineIndex('secret', bySecret)).toBe(true);
    expect(informer.byIndex('nope', 'x')).toBeUndefined();
  });

  it('builds the owner index on first use and keeps indexes true across a relist', () => {
    const { informer, feed } = run();
    informer.defineIndex('secret', bySecret);
    feed.sink().replace([cm('a', '1', 's1', 'p'), cm('b', '2', 's1', 'p')]);
    expect(names(informer.byIndex('owner', 'uid-p'))).toEqual(['a', 'b']);

    // A relist: a vanished, b changed owner and secret, d new.
    feed.sink().beginList();
    feed.sink().upsert(cm('b', '7', 's3', 'q'));
    feed.sink().upsert(cm('d', '8', 's1', 'p'));
    feed.sink().endList();
    expect(names(informer.byIndex('owner', 'uid-p'))).toEqual(['d']);
    expect(names(informer.byIndex('owner', 'uid-q'))).toEqual(['b']);
    expect(names(informer.byIndex('secret', 's1'))).toEqual(['d']);
    expect(names(informer.byIndex('secret', 's3'))).toEqual(['b']);
  });
});
