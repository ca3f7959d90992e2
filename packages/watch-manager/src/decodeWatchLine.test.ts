import { describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { decodeWatchLine, decodeWatchLineByParse, INITIAL_EVENTS_END } from './decodeWatchLine.js';
import { fastParseWatchLine } from './fastParseWatchLine.js';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import { LineSplitter } from './LineSplitter.js';
import { prng, randomJson, randomMap, randomString } from './randomJson.testkit.js';
import { LAST_APPLIED_ANNOTATION } from './trimMetadata.js';

const GVR: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
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

const byParse = (line: string): unknown => outcome(() => decodeWatchLineByParse(line, GVR, intern));
/** Decodes `line` placed inside a larger text, as the splitter hands it out: other lines before and after. */
const fast = (line: string, before = '', after = ''): unknown => {
  const text = `${before}${line}\n${after}`;
  return outcome(() => decodeWatchLine(text, before.length, before.length + line.length, GVR, intern));
};

/** `fieldsV1` values that recur, as they do across the objects of a kind. */
const FIELDS_V1: unknown[] = [
  { 'f:data': { '.': {}, 'f:key': {} } },
  { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
  {},
  { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {} } } } },
];

/** A watch line shaped as kube-apiserver writes them, with random content, and now and then another shape. */
function randomLine(rand: () => number): string {
  const types = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR', 'BOGUS'];
  const type = rand() < 0.9 ? (types[Math.floor(rand() * 4)] as string) : (types[Math.floor(rand() * types.length)] as string);
  const metadata: Record<string, unknown> = {};
  if (rand() < 0.95) metadata['name'] = rand() < 0.9 ? `cm-${Math.floor(rand() * 100)}` : randomJson(rand, 2);
  if (rand() < 0.8) metadata['namespace'] = rand() < 0.9 ? `ns-${Math.floor(rand() * 5)}` : randomString(rand);
  if (rand() < 0.8) metadata['uid'] = `u-${Math.floor(rand() * 1e6)}`;
  if (rand() < 0.9) metadata['resourceVersion'] = rand() < 0.9 ? String(Math.floor(rand() * 1e6)) : randomJson(rand, 3);
  if (rand() < 0.3) metadata['generation'] = rand() < 0.8 ? Math.floor(rand() * 10) : randomString(rand);
  if (rand() < 0.7) metadata['creationTimestamp'] = '2026-12-01T10:00:00Z';
  if (rand() < 0.1) metadata['deletionTimestamp'] = '2026-12-01T11:00:00Z';
  if (rand() < 0.7) metadata['labels'] = rand() < 0.95 ? randomMap(rand) : randomJson(rand, 2);
  if (rand() < 0.7) {
    const annotations = randomMap(rand);
    if (rand() < 0.3) annotations[LAST_APPLIED_ANNOTATION] = JSON.stringify({ kind: 'ConfigMap', data: randomMap(rand) });
    if (type === 'BOOKMARK' && rand() < 0.5) annotations[INITIAL_EVENTS_END] = rand() < 0.8 ? 'true' : 'false';
    metadata['annotations'] = annotations;
  }
  if (rand() < 0.2) metadata['ownerReferences'] = [{ apiVersion: 'v1', kind: 'ConfigMap', name: randomString(rand), uid: 'o-1' }];
  if (rand() < 0.2) metadata['finalizers'] = [randomString(rand)];
  if (rand() < 0.8) {
    metadata['managedFields'] = [
      {
        manager: randomString(rand),
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-12-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        // Now and then one the decoder has validated before (it remembers the last few).
        fieldsV1: rand() < 0.5 ? FIELDS_V1[Math.floor(rand() * FIELDS_V1.length)] : randomJson(rand, 0),
      },
    ];
  }
  // Now and then a member after managedFields, or a key repeated.
  if (rand() < 0.05) metadata['zzz'] = randomJson(rand, 2);
  let meta = JSON.stringify(metadata);
  if (rand() < 0.05) meta = meta.replace('{', '{"managedFields":[1],');
  if (rand() < 0.05) meta = meta.replace('"labels":', '"labels":{"x":"dup"},"labels":');
  const object =
    type === 'ERROR'
      ? `{"kind":"Status","apiVersion":"v1","code":410,"reason":"Expired","metadata":${meta}}`
      : `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":${meta}}`;
  const shape = rand();
  if (shape < 0.85) return `{"type":"${type}","object":${object}}`;
  if (shape < 0.9) return `{"object":${object},"type":"${type}"}`;
  if (shape < 0.95) return ` {"type":"${type}", "object":${object}} \r`;
  return `{"type":"${type}","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":${meta},"data":${JSON.stringify(randomMap(rand))}}}`;
}

/** One random edit: most edited lines are no longer valid JSON, and must fail the same way. */
function mutate(line: string, rand: () => number): string {
  const at = Math.floor(rand() * line.length);
  const pieces = ['{', '}', '[', ']', '"', ',', ':', '\\', ' ', '\t', '0', '-', '.', 'e', 'n', '\u0000', 'ż', '"managedFields":[', ']}'];
  const piece = pieces[Math.floor(rand() * pieces.length)] as string;
  const r = rand();
  if (r < 0.3) return line.slice(0, at) + line.slice(at + 1);
  if (r < 0.6) return line.slice(0, at) + piece + line.slice(at);
  if (r < 0.9) return line.slice(0, at) + piece + line.slice(at + 1);
  return line.slice(0, at);
}

describe('decodeWatchLine', () => {
  it('decodes exactly as the plain JSON.parse of the line, over random server-shaped lines (differential)', () => {
    const rand = prng(7);
    let fastPathTaken = 0;
    const lines = 4000;
    for (let i = 0; i < lines; i++) {
      const line = randomLine(rand);
      const neighbour = randomLine(rand);
      expect({ line, got: fast(line, `${neighbour}\n`, neighbour) }).toEqual({ line, got: byParse(line) });
      if (fastParseWatchLine(line) !== undefined) fastPathTaken++;
    }
    // Most lines have the server's shape: the fast path, not the fallback, is what was compared.
    expect(fastPathTaken).toBeGreaterThan(lines * 0.5);
  });

  it('fails, or succeeds, exactly as the plain parse for randomly edited lines (differential)', () => {
    const rand = prng(11);
    let fastPathTaken = 0;
    for (let i = 0; i < 6000; i++) {
      let line = randomLine(rand);
      for (let edits = 1 + Math.floor(rand() * 2); edits > 0; edits--) line = mutate(line, rand);
      expect({ line, got: fast(line, '{"a":1}\n', '"managedFields":[') }).toEqual({ line, got: byParse(line) });
      if (fastParseWatchLine(line) !== undefined) fastPathTaken++;
    }
    expect(fastPathTaken).toBeGreaterThan(500);
  });

  const prefix = '{"type":"MODIFIED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":';
  const line = (meta: string): string => `${prefix}${meta}}}`;
  const cases: Array<[string, string]> = [
    [
      'the server shape',
      line('{"name":"a","namespace":"n","resourceVersion":"5","managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}]}'),
    ],
    ['escaped quotes and backslashes in managedFields', line('{"name":"a","managedFields":[{"manager":"a\\"]}\\\\","x":"\\u00e9\\n"}]}')],
    ['brackets inside managedFields strings', line('{"name":"a","managedFields":["]}}}","{[","]"]}')],
    ['escapes in labels before managedFields', line('{"name":"a","labels":{"q":"\\"x\\""},"managedFields":[]}')],
    [
      'a last-applied annotation',
      line(`{"name":"a","annotations":{"${LAST_APPLIED_ANNOTATION}":"{\\"a\\":1}","b":"c"},"managedFields":[]}`),
    ],
    ['multi-byte and lone surrogates', line('{"name":"żółw😀","labels":{"a":"\ud800"},"managedFields":[{"m":"€"}]}')],
    ['numbers and literals in managedFields', line('{"name":"a","managedFields":[0,-1.5e+3,1E2,true,false,null,{}]}')],
    ['managedFields not last', line('{"name":"a","managedFields":[],"uid":"u"}')],
    ['managedFields first', line('{"managedFields":[1],"name":"a"}')],
    ['managedFields only', line('{"managedFields":[1]}')],
    ['managedFields twice', line('{"name":"a","managedFields":[1],"managedFields":[2]}')],
    ['managedFields not an array', line('{"name":"a","managedFields":{"a":[]}}')],
    ['a label that looks like managedFields', line('{"name":"a","labels":{"x":",\\"managedFields\\":["},"managedFields":[]}')],
    ['whitespace around managedFields', line('{"name":"a" ,"managedFields": [ 1 ] }')],
    ['no metadata name', line('{"namespace":"n","managedFields":[]}')],
    ['metadata not an object', line('"a"')],
    [
      'a BOOKMARK ending the initial events',
      `{"type":"BOOKMARK","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9","annotations":{"${INITIAL_EVENTS_END}":"true"}}}}`,
    ],
    [
      'a BOOKMARK without resourceVersion',
      '{"type":"BOOKMARK","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{}}}',
    ],
    [
      'an ERROR Status',
      '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old","reason":"Expired","code":410}}',
    ],
    [
      'a DELETED full object',
      '{"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n"},"data":{"k":"v"}}}',
    ],
    [
      'fields in another order',
      '{"object":{"metadata":{"name":"a","managedFields":[]},"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata"},"type":"ADDED"}',
    ],
    ['an unknown type', '{"type":"BOGUS","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a"}}}'],
    ['a trailing carriage return', `${line('{"name":"a","managedFields":[]}')}\r`],
    ['invalid JSON in managedFields: trailing comma', line('{"name":"a","managedFields":[1,]}')],
    ['invalid JSON in managedFields: leading zero', line('{"name":"a","managedFields":[01]}')],
    ['invalid JSON in managedFields: raw tab in a string', line('{"name":"a","managedFields":["a\tb"]}')],
    ['invalid JSON in managedFields: bad escape', line('{"name":"a","managedFields":["\\x"]}')],
    ['invalid JSON in managedFields: short unicode escape', line('{"name":"a","managedFields":["\\u12"]}')],
    ['invalid JSON in managedFields: mismatched brackets', line('{"name":"a","managedFields":[{]}]}')],
    ['invalid JSON: managedFields right after the brace', line('{,"managedFields":[]}')],
    ['invalid JSON: unclosed metadata before managedFields', line('{"name":"a","labels":{"b":"c","managedFields":[]}')],
    ['invalid JSON: a bracket where metadata should close', line('{"name":"a","managedFields":[1]]')],
    ['invalid JSON: an extra brace at the end', `${line('{"name":"a","managedFields":[]}')}}`],
    ['not a JSON object', 'null'],
    ['a JSON array', '[1]'],
    ['not JSON', '{"type":"ADDED",'],
  ];
  it.each(cases)('decodes %s exactly as the plain parse', (_name, text) => {
    expect(fast(text, `${line('{"name":"x","managedFields":[]}')}\n`, line('{"name":"y","managedFields":[]}'))).toEqual(byParse(text));
  });

  it('takes a fieldsV1 it validated before as valid only where that very object stands', () => {
    const known = '{"f:spec":{"f:replicas":{}}}';
    const withFields = (fields: string): string => line(`{"name":"a","managedFields":[{"manager":"m","fieldsV1":${fields}}]}`);
    // Validated once, remembered from then on.
    expect(fastParseWatchLine(withFields(known))).toEqual({ type: 'MODIFIED', metadata: { name: 'a' } });
    for (const fields of [
      `${known}x`,
      `${known}}`,
      `${known.slice(0, -1)},"f:paused":{}}`,
      `${known.slice(0, -2)}`,
      `${known.slice(0, -1)}`,
      `{"f:spec":{"f:replicas":{}},}`,
      known,
    ]) {
      const text = withFields(fields);
      expect({ fields, got: fast(text) }).toEqual({ fields, got: byParse(text) });
    }
  });

  it('takes the fast path for the server shape and leaves managedFields and the wrapper unparsed', () => {
    const text = line('{"name":"a","namespace":"n","labels":{"app":"web"},"managedFields":[{"manager":"m"}]}');
    expect(fastParseWatchLine(text)).toEqual({ type: 'MODIFIED', metadata: { name: 'a', namespace: 'n', labels: { app: 'web' } } });
    expect(decodeWatchLine(text, 0, text.length, GVR, intern)).toEqual({
      type: 'MODIFIED',
      object: {
        apiVersion: 'meta.k8s.io/v1',
        kind: 'PartialObjectMetadata',
        metadata: { name: 'a', namespace: 'n', labels: { app: 'web' } },
      },
    });
  });

  it('takes the fast path for the lines kube-apiserver v1.36.3 wrote for a metadata-only watch of ConfigMaps', () => {
    // Copied from the real server's response (Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1).
    const added =
      '{"type":"ADDED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"config-000001","namespace":"team-1","uid":"998bc501-2197-4ea8-b051-ade5aa634333","resourceVersion":"203","creationTimestamp":"2026-12-01T10:05:08Z","labels":{"app":"app-1","app.kubernetes.io/managed-by":"protean-bench","tier":"api"},"annotations":{"protean.dev/checksum":"sha256-3f0a9c2b7e","protean.dev/revision":"1"},"managedFields":[{"manager":"kubernetes-client-javascript","operation":"Update","apiVersion":"v1","time":"2026-12-01T10:05:08Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:config.yaml":{}},"f:metadata":{"f:annotations":{".":{},"f:protean.dev/checksum":{},"f:protean.dev/revision":{}},"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/managed-by":{},"f:tier":{}}}}}]}}}';
    const bookmark =
      '{"type":"BOOKMARK","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"203","annotations":{"k8s.io/initial-events-end":"true"}}}}';
    for (const text of [added, bookmark]) {
      expect(fastParseWatchLine(text)).toBeDefined();
      expect(fast(text)).toEqual(byParse(text));
    }
    expect(fastParseWatchLine(added)?.metadata).not.toHaveProperty('managedFields');
  });

  it('decodes a stream cut into random chunks, multi-byte characters split across them, as the plain parse of each line', () => {
    const rand = prng(3);
    const lines = Array.from({ length: 300 }, () => randomLine(rand));
    const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    const splitter = new LineSplitter();
    const got: unknown[] = [];
    const onLine = (text: string, start: number, end: number): number =>
      got.push(outcome(() => decodeWatchLine(text, start, end, GVR, intern)));
    for (let at = 0; at < bytes.length;) {
      const size = 1 + Math.floor(rand() * (rand() < 0.5 ? 8 : 2000));
      splitter.push(bytes.subarray(at, at + size), onLine);
      at += size;
    }
    splitter.end(onLine);
    const expected = lines.filter((l) => l.trim() !== '').map(byParse);
    expect(got).toEqual(expected);
  });
});
