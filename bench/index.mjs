// Secondary indexes of the object cache: `ctx.list(gvr, { index, value })`
// against the scan a label selector does, at 100,000 cached objects (quick:
// 10,000), and the heap each index costs.
//
// The objects: ConfigMaps in 100 namespaces, each owned by one of 10,000
// parents (10 per parent) and labelled with it (`parent=<name>`). The lookup
// is "the children of one parent": by the built-in `owner` index (owner uid),
// by a declared index (`parent` label value), and by the scan of today's
// `ctx.list(gvr, { labelSelector: 'parent=<name>' })` over all namespaces.
// Both go through the informer engine's own cache (the Informer of
// @protean/watch-manager, fed by an in-process list/watch), as ctx.list does:
// `byIndex` vs `list()` filtered by the parsed selector. Time per call:
// median of 5 samples of 200 lookups (of different parents) after a warm-up.
// Heap per index: heapUsed after a forced collection, before and after the
// index is defined (a forced gc() here measures a data structure, not a process).
// The Go anchor (bench/client-go-anchor, `-index N`): the same objects as typed
// ConfigMaps in client-go's Indexer with an owner index, looked up with ByIndex,
// bare and followed by a DeepCopy of each object found (what controller-runtime's
// cached client does by default); its heap per index is HeapAlloc after
// runtime.GC() of a store with the index less one without.
import { execFileSync } from 'node:child_process';
import { parseSelector } from '@protean/core';
import { Informer } from '@protean/watch-manager';
import { parseArgs } from './lib/args.mjs';
import { clientGoAnchorBinary } from './lib/clientGoAnchor.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { median } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const quick = flags.quick === true;
const OBJECTS = quick ? 10_000 : 100_000;
const PER_PARENT = 10;
const PARENTS = OBJECTS / PER_PARENT;
const LOOKUPS = 200;
const SAMPLES = 5;
const gvr = { group: '', version: 'v1', resource: 'configmaps' };

function objects() {
  const out = [];
  for (let i = 0; i < OBJECTS; i++) {
    const parent = i % PARENTS;
    out.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `cm-${i}`,
        namespace: `ns-${i % 100}`,
        resourceVersion: String(i + 1),
        uid: `uid-cm-${i}`,
        labels: { parent: `p-${parent}` },
        ownerReferences: [{ apiVersion: 'demo/v1', kind: 'Parent', name: `p-${parent}`, uid: `uid-p-${parent}` }],
      },
      data: { key: `value-${i}` },
    });
  }
  return out;
}

function heapMiB() {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** Median time per call, in µs, of `lookup(parentIndex)` over LOOKUPS parents, SAMPLES times. */
function time(lookup) {
  for (let i = 0; i < 20; i++) lookup(i);
  const samples = [];
  for (let s = 0; s < SAMPLES; s++) {
    const started = process.hrtime.bigint();
    let found = 0;
    for (let i = 0; i < LOOKUPS; i++) found += lookup((i * 7919 + s) % PARENTS).length;
    const elapsed = Number(process.hrtime.bigint() - started) / 1000;
    if (found !== LOOKUPS * PER_PARENT) throw new Error(`found ${found} children, expected ${LOOKUPS * PER_PARENT}`);
    samples.push(elapsed / LOOKUPS);
  }
  return median(samples);
}

progress('index', `${OBJECTS.toLocaleString('en-US')} cached objects`);
let sink;
const informer = new Informer({ gvr, delivers: 'objects', run: (s) => void (sink = s) }, {}, { holdsObjects: true });
informer.run(new AbortController().signal);
sink.replace(objects());

const scan = (p) => {
  const selector = parseSelector(`parent=p-${p}`);
  return informer.list().filter((o) => selector.matches(o.metadata.labels ?? {}));
};
const scanUs = time(scan);

const beforeOwner = heapMiB();
const ownerUs = time((p) => informer.byIndex('owner', `uid-p-${p}`));
const ownerMiB = heapMiB() - beforeOwner;

const beforeParent = heapMiB();
informer.defineIndex('parent', (o) => [o.metadata.labels?.parent ?? '']);
const parentMiB = heapMiB() - beforeParent;
const parentUs = time((p) => informer.byIndex('parent', `p-${p}`));

// The Go anchor: client-go's Indexer with an owner index, as controller-runtime's cached client answers a List with a
// field index (ByIndex, then a deep copy of each object found, its default).
const goBinary = clientGoAnchorBinary((line) => progress('index', line));
const go = JSON.parse(execFileSync(goBinary, ['-index', String(OBJECTS)], { encoding: 'utf8' }).trim());

// What freezing cached objects in production would cost (they are frozen under @protean/testing's fakes only): a
// deep freeze per object against the JSON.parse that produced it, median of 7 rounds of 20,000 objects.
function perObjectNs(work) {
  const text = JSON.stringify(objects().slice(0, 1)[0]);
  const rounds = [];
  for (let r = 0; r < 7; r++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 20_000; i++) work(JSON.parse(text));
    rounds.push(Number(process.hrtime.bigint() - started) / 20_000);
  }
  return median(rounds);
}
function deepFreeze(value) {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}
const parseNs = perObjectNs(() => undefined);
const freezeNs = perObjectNs(deepFreeze) - parseNs;

const size = `${OBJECTS.toLocaleString('en-US')} objects`;
emitResult(flags, {
  name: 'index',
  title: 'ctx.list: secondary index vs scan',
  rows: [
    { measure: 'scan (labelSelector over the cache)', size, work: 1, value: scanUs, unit: 'µs/call', cost: 'direct' },
    { measure: 'owner index (built in)', size, work: 1, value: ownerUs, unit: 'µs/call', cost: 'direct' },
    { measure: 'declared index (label value)', size, work: 1, value: parentUs, unit: 'µs/call', cost: 'direct' },
    { measure: 'client-go Indexer.ByIndex (owner)', size, work: 1, value: go.byIndexUs, unit: 'µs/call', cost: 'direct' },
    {
      measure: 'client-go ByIndex + deep copies (cached client)',
      size,
      work: 1,
      value: go.byIndexDeepCopyUs,
      unit: 'µs/call',
      cost: 'direct',
    },
    { measure: 'heap of the owner index', size, work: 1, value: ownerMiB, unit: 'MiB', cost: 'direct' },
    { measure: 'heap of the declared index', size, work: 1, value: parentMiB, unit: 'MiB', cost: 'direct' },
    { measure: 'client-go: heap of the owner index', size, work: 1, value: go.heapPerIndexBytes / 2 ** 20, unit: 'MiB', cost: 'direct' },
    { measure: 'JSON.parse of one cached object', size: 'per object', work: 1, value: parseNs, unit: 'ns', cost: 'direct' },
    { measure: 'deep freeze of it, on top', size: 'per object', work: 1, value: freezeNs, unit: 'ns', cost: 'direct' },
  ],
  notes: [
    `children of one parent (${PER_PARENT} of ${OBJECTS.toLocaleString('en-US')}), median of ${SAMPLES} samples of ${LOOKUPS} lookups; scan/owner ${(scanUs / ownerUs).toFixed(0)}x; owner index vs client-go ByIndex ${(ownerUs / go.byIndexUs).toFixed(2)}x`,
    'heap per index: heapUsed after gc() before and after the index exists (the owner index is built on its first use)',
  ],
});
