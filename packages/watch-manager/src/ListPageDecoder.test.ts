import { describe, expect, it, jest } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { decodeListPageByParse } from './decodeListPage.js';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import { fastParseListItem } from './fastParseWatchLine.js';
import { BIG_CHUNK_CHARS, heldAfterGc } from './heldBytes.testkit.js';
import { ListPageDecoder } from './ListPageDecoder.js';
import { prng, randomJson, randomMap, randomString } from './randomJson.testkit.js';
import { LAST_APPLIED_ANNOTATION } from './trimMetadata.js';

const GVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
const intern = (s: string): string => s;

/** A decode's result, or the error it threw, as comparable data. */
function outcome(decode: () => unknown): unknown {
  try {
    return { ok: decode() };
  } catch (err) {
    if (!(err instanceof KubernetesRequestError)) return { thrown: String(err) };
    return { error: { name: err.name, message: err.message, reason: err.reason, status: err.status } };
  }
}

/** The whole-body path: the bytes joined, decoded as UTF-8 and parsed, as the informer did before streaming. */
const byParse = (bytes: Buffer): unknown => outcome(() => decodeListPageByParse(bytes.toString('utf8'), GVR, intern));

/** The streaming path, fed `bytes` in chunks of random sizes (1-8 or 1-2,000 bytes). */
function streamed(bytes: Buffer, rand: () => number): unknown {
  const decoder = new ListPageDecoder(GVR, intern);
  return outcome(() => {
    for (let at = 0; at < bytes.length;) {
      const size = 1 + Math.floor(rand() * (rand() < 0.5 ? 8 : 2000));
      decoder.push(bytes.subarray(at, at + size));
      at += size;
    }
    return decoder.end();
  });
}

function randomMetadata(rand: () => number): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  if (rand() < 0.95) m['name'] = rand() < 0.9 ? `d-${Math.floor(rand() * 1000)}` : randomJson(rand, 2);
  if (rand() < 0.8) m['namespace'] = rand() < 0.9 ? `ns-${Math.floor(rand() * 5)}` : randomString(rand);
  if (rand() < 0.8) m['uid'] = `u-${Math.floor(rand() * 1e6)}`;
  if (rand() < 0.9) m['resourceVersion'] = String(Math.floor(rand() * 1e6));
  if (rand() < 0.3) m['generation'] = Math.floor(rand() * 10);
  if (rand() < 0.7) m['labels'] = rand() < 0.95 ? randomMap(rand) : randomJson(rand, 2);
  if (rand() < 0.5) {
    const annotations = randomMap(rand);
    if (rand() < 0.3) annotations[LAST_APPLIED_ANNOTATION] = JSON.stringify({ kind: 'Deployment', spec: randomJson(rand, 1) });
    m['annotations'] = annotations;
  }
  if (rand() < 0.2) m['ownerReferences'] = [{ apiVersion: 'v1', kind: 'ConfigMap', name: randomString(rand), uid: 'o-1' }];
  if (rand() < 0.2) m['finalizers'] = [randomString(rand)];
  // What the fast path searches for as the next item's start, inside this one: its first cut is wrong.
  if (rand() < 0.05) m['nested'] = [{ a: 1 }, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'x' } }];
  if (rand() < 0.8) m['managedFields'] = [{ manager: randomString(rand), operation: 'Update', fieldsV1: randomJson(rand, 0) }];
  return m;
}

/** One element of `items`: mostly what kube-apiserver writes for a metadata-only list, now and then a full object or no object. */
function randomItem(rand: () => number): string {
  const r = rand();
  const meta = JSON.stringify(randomMetadata(rand));
  if (r < 0.8) return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":${meta}}`;
  if (r < 0.9) return `{"metadata":${meta},"spec":${JSON.stringify(randomJson(rand, 0))},"status":{"note":"}]{[\\"\\\\"}}`;
  if (r < 0.95) return '{}';
  return JSON.stringify(randomJson(rand, 1));
}

/** A LIST response body with random content, member order, repeats, whitespace and now and then another shape. */
function randomBody(rand: () => number): string {
  const items = Array.from({ length: Math.floor(rand() * (rand() < 0.2 ? 40 : 6)) }, () => randomItem(rand));
  const ws = (): string => (rand() < 0.85 ? '' : [' ', '\n', '\r\n  ', '\t'][Math.floor(rand() * 4)]!);
  const itemsValue = `[${ws()}${items.map((item) => `${item}${ws()}`).join(`,${ws()}`)}]`;
  const listMeta: Record<string, unknown> = { resourceVersion: String(Math.floor(rand() * 1e6)) };
  if (rand() < 0.5) listMeta['continue'] = rand() < 0.9 ? `eyJ2IjoibWV0YS${Math.floor(rand() * 1e6)}` : randomJson(rand, 2);
  if (rand() < 0.1) listMeta['remainingItemCount'] = Math.floor(rand() * 100);
  const members: Array<[string, string]> = [
    ['"kind"', '"PartialObjectMetadataList"'],
    ['"apiVersion"', '"meta.k8s.io/v1"'],
  ];
  const metadataKey = rand() < 0.05 ? '"met\\u0061data"' : '"metadata"';
  const itemsKey = rand() < 0.05 ? '"it\\u0065ms"' : '"items"';
  if (rand() < 0.95) members.push([metadataKey, JSON.stringify(rand() < 0.95 ? listMeta : randomJson(rand, 2))]);
  if (rand() < 0.95) members.push([itemsKey, rand() < 0.95 ? itemsValue : JSON.stringify(randomJson(rand, 2))]);
  // metadata after items (the server writes it first), keys repeated, other members.
  if (rand() < 0.3) members.reverse();
  if (rand() < 0.05) members.push(['"metadata"', JSON.stringify({ resourceVersion: '1' })]);
  if (rand() < 0.05) members.push(['"items"', rand() < 0.5 ? '[{"metadata":{"name":"again"}}]' : 'null']);
  if (rand() < 0.1) members.splice(1, 0, [JSON.stringify(randomString(rand)), JSON.stringify(randomJson(rand, 0))]);
  const body = `{${members.map(([k, v]) => `${ws()}${k}${ws()}:${ws()}${v}${ws()}`).join(',')}}`;
  const shape = rand();
  if (shape < 0.9) return body;
  if (shape < 0.95) return `${ws()} ${body}\n${ws()}`;
  return ['null', '[]', '5', '"x"', '', '  ', 'true', `[${body}]`][Math.floor(rand() * 8)]!;
}

/** One random edit: most edited bodies are no longer JSON, and must fail the same way. */
function mutate(body: string, rand: () => number): string {
  const at = Math.floor(rand() * body.length);
  const pieces = ['{', '}', '[', ']', '"', ',', ':', '\\', ' ', '0', '-', 'e', 'n', '\u0000', 'ż', '"items":[', ']}', '\ufeff'];
  const piece = pieces[Math.floor(rand() * pieces.length)]!;
  const r = rand();
  if (r < 0.3) return body.slice(0, at) + body.slice(at + 1);
  if (r < 0.6) return body.slice(0, at) + piece + body.slice(at);
  if (r < 0.9) return body.slice(0, at) + piece + body.slice(at + 1);
  return body.slice(0, at);
}

describe('ListPageDecoder', () => {
  it('decodes random LIST bodies in random chunks exactly as JSON.parse of the whole body (differential)', () => {
    const rand = prng(24);
    let itemsSeen = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = Buffer.from(randomBody(rand), 'utf8');
      const expected = byParse(bytes);
      expect({ body: bytes.toString(), got: streamed(bytes, rand) }).toEqual({ body: bytes.toString(), got: expected });
      const ok = (expected as { ok?: { items: unknown[] } }).ok;
      itemsSeen += ok?.items.length ?? 0;
    }
    // Most bodies are lists with items: the item path, not the fallback, is what was compared.
    expect(itemsSeen).toBeGreaterThan(5000);
  });

  it('fails, or succeeds, exactly as the whole-body parse for randomly edited and truncated bodies (differential)', () => {
    const rand = prng(25);
    let failures = 0;
    for (let i = 0; i < 5000; i++) {
      let body = randomBody(rand);
      for (let edits = 1 + Math.floor(rand() * 2); edits > 0; edits--) body = mutate(body, rand);
      const bytes = Buffer.from(body, 'utf8');
      const expected = byParse(bytes);
      expect({ body, got: streamed(bytes, rand) }).toEqual({ body, got: expected });
      if ('error' in (expected as object)) failures++;
    }
    expect(failures).toBeGreaterThan(2000);
  });

  it('decodes bodies with invalid UTF-8 bytes split across chunks as the whole-body decode does', () => {
    const rand = prng(26);
    const junk = [0xff, 0xc3, 0xe2, 0x82, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0x80];
    for (let i = 0; i < 1000; i++) {
      const bytes = Buffer.from(randomBody(rand), 'utf8');
      const at = Math.floor(rand() * bytes.length);
      const inserted = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => junk[Math.floor(rand() * junk.length)]!);
      const edited = Buffer.concat([bytes.subarray(0, at), Buffer.from(inserted), bytes.subarray(at)]);
      expect({ at, got: streamed(edited, rand) }).toEqual({ at, got: byParse(edited) });
    }
  });

  it('decodes single random and randomly edited items, most on the fast path, exactly as the whole-body parse (differential)', () => {
    const rand = prng(27);
    let fastPathTaken = 0;
    for (let i = 0; i < 4000; i++) {
      let item = randomItem(rand);
      if (rand() < 0.5) item = mutate(item, rand);
      const bytes = Buffer.from(`{"metadata":{"resourceVersion":"1"},"items":[${item}]}`, 'utf8');
      expect({ item, got: streamed(bytes, rand) }).toEqual({ item, got: byParse(bytes) });
      if (fastParseListItem(item) !== undefined) fastPathTaken++;
    }
    expect(fastPathTaken).toBeGreaterThan(1500);
  });

  it("finds the end of every item but a chunk's last by searching for the next, not by scanning its bytes", () => {
    const item = (i: number): string =>
      `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"o-${i}","managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]}}`;
    const body = (n: number): string =>
      `{"metadata":{"resourceVersion":"1"},"items":[${Array.from({ length: n }, (_, i) => item(i)).join(',')}]}`;
    const scans = (text: string): { scans: number; items: number } => {
      const scan = jest.spyOn(ListPageDecoder.prototype as unknown as { skipNested(): number }, 'skipNested');
      try {
        const decoder = new ListPageDecoder(GVR, intern);
        decoder.push(Buffer.from(text));
        return { scans: scan.mock.calls.length, items: decoder.end().items.length };
      } finally {
        scan.mockRestore();
      }
    };
    expect(scans(body(50))).toEqual({ scans: scans(body(1)).scans, items: 50 });
    // A nested object of the same form is no next item: that first cut fails and the scan finds the end.
    const nested = item(0).replace('"metadata":{', `"metadata":{"nested":[${item(1)},${item(2)}],`);
    const text = `{"items":[${nested},${item(3)}]}`;
    expect(scans(text).items).toBe(2);
    expect(streamed(Buffer.from(text), () => 0.999)).toEqual(byParse(Buffer.from(text)));
  });

  it("searches for the next item only where an item of the server's form starts, and once per chunk without finding one", () => {
    const serverItem = (i: number): string => `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"o-${i}"}}`;
    const fullItem = (i: number): string => `{"metadata":{"name":"o-${i}"},"spec":{"replicas":1}}`;
    const searches = (items: string[], separator: string): { searches: number; items: number } => {
      const indexOf = jest.spyOn(Buffer.prototype, 'indexOf');
      try {
        const decoder = new ListPageDecoder(GVR, intern);
        decoder.push(Buffer.from(`{"metadata":{"resourceVersion":"1"},"items":[${items.join(separator)}]}`));
        return { searches: indexOf.mock.calls.length, items: decoder.end().items.length };
      } finally {
        indexOf.mockRestore();
      }
    };
    const many = Array.from({ length: 50 }, (_, i) => i);
    // Full objects (a server that answers with plain JSON): no search at all.
    expect(searches(many.map(fullItem), ',')).toEqual({ searches: 0, items: 50 });
    // The server's form, but whitespace between items: the first search finds nothing, and none follows.
    expect(searches(many.map(serverItem), ', ')).toEqual({ searches: 1, items: 50 });
    // The server's form: one search per item.
    expect(searches(many.map(serverItem), ',')).toEqual({ searches: 50, items: 50 });
  });

  const cases: Array<[string, string]> = [
    ['metadata first', '{"kind":"List","metadata":{"resourceVersion":"7","continue":"c"},"items":[{"metadata":{"name":"a"}}]}'],
    ['metadata after items', '{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],"metadata":{"resourceVersion":"7"}}'],
    ['empty items', '{"metadata":{"resourceVersion":"7"},"items":[]}'],
    ['no items', '{"metadata":{"resourceVersion":"7"}}'],
    ['items repeated: the last wins', '{"items":[{"metadata":{"name":"a"}}],"items":[{"metadata":{"name":"b"}}]}'],
    ['items then null', '{"items":[{"metadata":{"name":"a"}}],"items":null}'],
    ['braces and escapes in strings', '{"items":[{"metadata":{"name":"a","labels":{"x":"}]\\"{[\\\\"}},"s":"\\u007d"}]}'],
    ['a Status body', '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Expired","code":410}'],
    ['a trailing comma in items', '{"items":[{"metadata":{"name":"a"}},]}'],
    ['a trailing comma in the object', '{"items":[],}'],
    ['a missing colon', '{"items"[]}'],
    ['an empty value', '{"items":}'],
    ['two values', '{"items":[] []}'],
    ['garbage after the object', '{"items":[]} x'],
    ['a second object', '{"items":[]}{}'],
    ['truncated in an item', '{"items":[{"metadata":{"name":"a"'],
    ['truncated after items', '{"items":[]'],
    ['a number key', '{1:2}'],
    ['a raw control character in a key', '{"it\u0001ems":[]}'],
    ['a leading BOM', '\ufeff{"items":[]}'],
    ['empty', ''],
    ['whitespace only', ' \n'],
    ['null', 'null'],
    ['an array', '[{"metadata":{"name":"a"}}]'],
    ['a not-JSON text', '<html>502 Bad Gateway</html>'],
  ];
  it.each(cases)('decodes %s exactly as the whole-body parse', (_name, text) => {
    const bytes = Buffer.from(text, 'utf8');
    const rand = prng(text.length);
    expect(streamed(bytes, rand)).toEqual(byParse(bytes));
    expect(streamed(bytes, () => 0)).toEqual(byParse(bytes));
  });

  it('keeps only the trimmed metadata of items and the last list metadata', () => {
    const decoder = new ListPageDecoder(GVR, intern);
    decoder.push(
      '{"items":[{"kind":"PartialObjectMetadata","metadata":{"name":"a","namespace":"n","labels":{"x":"y"},"managedFields":[{}]},"spec":{}}],',
    );
    decoder.push('"metadata":{"resourceVersion":"9","continue":"next"}}');
    expect(decoder.end()).toEqual({
      items: [{ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'a', namespace: 'n', labels: { x: 'y' } } }],
      metadata: { resourceVersion: '9', continue: 'next' },
    });
  });
});

describe('ListPageDecoder memory', () => {
  it('keeps the tail of an item that goes on in the next chunk, not the chunk', () => {
    const decoder = new ListPageDecoder(GVR, intern);
    const before = heldAfterGc();
    // A chunk of 4 MiB (a member the decoder reads and drops) ending inside the first item, made and fed in a frame
    // of its own so that nothing but the decoder can hold it.
    const feed = (): void =>
      decoder.push(
        Buffer.from(
          `{"kind":"${'x'.repeat(BIG_CHUNK_CHARS)}","items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namesp`,
        ),
      );
    feed();
    expect(heldAfterGc() - before).toBeLessThan(BIG_CHUNK_CHARS / 4);
    decoder.push('ace":"ns","resourceVersion":"7"}}],"metadata":{"resourceVersion":"9"}}');
    const page = decoder.end();
    expect(page.items.map((o) => [o.metadata.namespace, o.metadata.name, o.metadata.resourceVersion])).toEqual([['ns', 'a', '7']]);
    expect(page.metadata).toEqual({ resourceVersion: '9' });
  });
});
