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
});
