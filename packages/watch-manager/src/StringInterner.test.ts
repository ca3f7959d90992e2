import { describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { heldAfterGc } from './heldBytes.testkit.js';
import { ListPageDecoder } from './ListPageDecoder.js';
import { StringInterner } from './StringInterner.js';

const GVR: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'widgets' };
const OBJECTS = 50_000;
const CREATED = '2026-12-05T23:59:58Z';

/** A metadata-only LIST page as kube-apiserver writes it: `OBJECTS` objects created in the same second. */
function listPage(): Buffer {
  const items = Array.from(
    { length: OBJECTS },
    (_, i) =>
      `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"w-${i}","namespace":"team-a",` +
      `"uid":"00000000-0000-4000-8000-${String(i).padStart(12, '0')}","resourceVersion":"${1000 + i}",` +
      `"creationTimestamp":"${CREATED}"}}`,
  );
  return Buffer.from(
    `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"99"},"items":[${items.join(',')}]}`,
  );
}

/**
 * The bytes the decoded objects of one page hold, with `intern` as the decoder's interner, and the last object's
 * metadata. The objects are dropped before it returns: the names they hold are short strings JSON.parse interns
 * itself, which a later page would otherwise find in V8's string table for free.
 */
function heldByDecodedPage(intern: (s: string) => string): { bytes: number; count: number; last: unknown } {
  const body = listPage();
  const before = heldAfterGc();
  const decoder = new ListPageDecoder(GVR, intern);
  for (let at = 0; at < body.length; at += 16 * 1024) decoder.push(body.subarray(at, at + 16 * 1024));
  const { items } = decoder.end();
  const bytes = heldAfterGc() - before;
  return { bytes, count: items.filter((o) => o.metadata.creationTimestamp === CREATED).length, last: items.at(-1)?.metadata };
}

describe('StringInterner', () => {
  it('gives every object of a list one copy of a creation timestamp they share', () => {
    // Both intern the namespace; only the second the timestamp.
    const namespaces = new StringInterner();
    const copies = heldByDecodedPage((s) => (s === CREATED ? s : namespaces.intern(s)));
    const interned = heldByDecodedPage(new StringInterner().intern);
    expect([copies.count, interned.count]).toEqual([OBJECTS, OBJECTS]);
    expect(interned.last).toMatchObject({ name: `w-${OBJECTS - 1}`, namespace: 'team-a', creationTimestamp: CREATED });
    // A 20-character string is at least 32 bytes in V8's heap: without interning, one per object.
    expect(copies.bytes - interned.bytes).toBeGreaterThan(OBJECTS * 24);
  });

  it('returns the string it was given, and the first one equal to it after that', () => {
    const interner = new StringInterner();
    expect(interner.intern('default')).toBe('default');
    expect(interner.intern(['def', 'ault'].join(''))).toBe('default');
    expect(interner.size).toBe(1);
  });

  it('starts over once it holds its limit of distinct strings, so it never grows past it', () => {
    const interner = new StringInterner(3);
    for (const s of ['a', 'b', 'c']) interner.intern(s);
    expect(interner.size).toBe(3);
    expect(interner.intern('d')).toBe('d');
    expect(interner.size).toBe(1);
    for (let i = 0; i < 100; i++) interner.intern(`s${i}`);
    expect(interner.size).toBeLessThanOrEqual(3);
  });

  it('gives the objects of a list that have the same labels one frozen labels object', () => {
    const item = (name: string, labels: string): string =>
      `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"${name}","namespace":"team-a",` +
      `"uid":"u-${name}","resourceVersion":"1","labels":${labels}}}`;
    const web = '{"app":"web","tier":"front"}';
    const decoder = new ListPageDecoder(GVR, new StringInterner().interner);
    decoder.push(
      `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},"items":[` +
        `${item('a', web)},${item('b', web)},${item('c', '{"app":"db","tier":"back"}')},${item('d', web)}]}`,
    );
    const [a, b, c, d] = decoder.end().items.map((o) => o.metadata.labels);
    expect([a, b, c, d]).toEqual([
      { app: 'web', tier: 'front' },
      { app: 'web', tier: 'front' },
      { app: 'db', tier: 'back' },
      { app: 'web', tier: 'front' },
    ]);
    expect(b).toBe(a);
    expect(d).toBe(a);
    expect(c).not.toBe(a);
    // Read-only, as every cached object is: a write would reach every object that shares the set.
    expect(Object.isFrozen(a) && Object.isFrozen(c)).toBe(true);
    expect(() => {
      (a as Record<string, string>)['app'] = 'changed';
    }).toThrow(TypeError);
  });

  it('keeps at most its limit of label sets too', () => {
    const interner = new StringInterner(2);
    const first = interner.labels({ a: '1' });
    expect(interner.labels({ a: '1' })).toBe(first);
    interner.labels({ a: '2' });
    interner.labels({ a: '3' });
    // Started over at the third distinct set: an equal set is now a new entry, the one given.
    const again = { a: '1' };
    expect(interner.labels(again)).toBe(again);
  });
});
