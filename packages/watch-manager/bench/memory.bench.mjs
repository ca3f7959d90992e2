// Heap bytes per cached object: Protean's metadata-only informer versus
// @kubernetes/client-node's makeInformer, both caching the same ConfigMaps
// (3 labels, 2 annotations, 1 KiB of data, server-written managedFields)
// served by the in-memory API server.
//
// Method: the API server runs in a worker thread, whose V8 heap is separate,
// so the main thread's heap holds only the informer under test. For each
// run: two forced full GCs (node --expose-gc), read heapUsed; start the
// informer and wait until it has listed every object; two forced full GCs,
// read heapUsed again. Bytes per object = (after - before) / objects. The
// informer is kept alive across the second reading, then stopped. A warm-up
// run of each informer over a small other resource (Secrets) first loads
// and compiles their code, so code and lazy module state are not counted.
//
// Run: pnpm bench   (sizes: 20,000 and BENCH_OBJECTS / BENCH_CLIENT_NODE_OBJECTS, both 100,000 by default)
import { setImmediate as tick } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import { KubernetesInformerSource } from '../dist/index.js';

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc (pnpm bench does)');
  process.exit(1);
}

const OURS_MAX = Number(process.env.BENCH_OBJECTS ?? 100_000);
const CLIENT_NODE_MAX = Number(process.env.BENCH_CLIENT_NODE_OBJECTS ?? 100_000);
const SMALL = Math.min(20_000, OURS_MAX, CLIENT_NODE_MAX);
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

const worker = new Worker(new URL('./apiserver.worker.mjs', import.meta.url), {
  resourceLimits: { maxOldGenerationSizeMb: 8192 },
});
const replies = [];
const waiters = [];
worker.on('message', (m) => (waiters.length > 0 ? waiters.shift()(m) : replies.push(m)));
worker.on('error', (err) => {
  console.error(err);
  process.exit(1);
});
const reply = () => (replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise((r) => waiters.push(r)));
const ask = async (msg) => {
  worker.postMessage(msg);
  return reply();
};

async function settledHeap() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await tick();
  }
  return process.memoryUsage().heapUsed;
}

async function waitUntil(cond) {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

/** Starts Protean's informer; resolves once synced. */
async function startOurs(kc, gvr) {
  const source = new KubernetesInformerSource({ kubeConfig: kc });
  const informer = source.createInformer(gvr, { resyncPeriodMs: 0 });
  const abort = new AbortController();
  informer.run(abort.signal);
  await waitUntil(() => informer.hasSynced());
  return { size: () => informer.list().length, stop: async () => abort.abort() };
}

/** Starts client-node's informer (full objects); resolves once its list is cached. */
async function startClientNode(kc, gvr) {
  const api = kc.makeApiClient(CoreV1Api);
  const path = `/api/v1/${gvr.resource}`;
  const list = gvr.resource === 'secrets' ? () => api.listSecretForAllNamespaces() : () => api.listConfigMapForAllNamespaces();
  const informer = makeInformer(kc, path, list);
  informer.on('error', () => undefined);
  await informer.start();
  return { size: () => informer.list().length, stop: () => informer.stop() };
}

async function measure(start, kc, expected) {
  const before = await settledHeap();
  const handle = await start(kc, CONFIGMAPS);
  const after = await settledHeap();
  const size = handle.size();
  await handle.stop();
  if (size !== expected) throw new Error(`informer cached ${size} objects, expected ${expected}`);
  return Math.round((after - before) / expected);
}

const { kubeConfig: exported } = await reply();
const kc = new KubeConfig();
kc.loadFromString(exported);

await ask({ type: 'warmup', count: 500 });
for (const start of [startOurs, startClientNode]) {
  const h = await start(kc, SECRETS);
  await h.stop();
}

const rows = [];
let populated = 0;
async function populateTo(n) {
  if (n > populated) await ask({ type: 'populate', from: populated, to: n });
  populated = Math.max(populated, n);
}

const sizes = [...new Set([SMALL, OURS_MAX, CLIENT_NODE_MAX])].sort((a, b) => a - b);
for (const n of sizes) {
  await populateTo(n);
  if (n <= OURS_MAX) rows.push({ impl: '@protean/watch-manager KubernetesInformer (metadata only)', objects: n, bytes: await measure(startOurs, kc, n) });
  if (n <= CLIENT_NODE_MAX) rows.push({ impl: '@kubernetes/client-node makeInformer (full objects)', objects: n, bytes: await measure(startClientNode, kc, n) });
}

worker.postMessage({ type: 'stop' });
await new Promise((resolve) => worker.once('exit', resolve));

console.log(`\nHeap bytes per cached object (node ${process.version}, --expose-gc, server in a worker thread)\n`);
console.log('| informer | objects | heap bytes / object |');
console.log('|---|---:|---:|');
for (const r of rows) console.log(`| ${r.impl} | ${r.objects.toLocaleString('en-US')} | ${r.bytes.toLocaleString('en-US')} |`);
console.log('');
for (const n of sizes) {
  const ours = rows.find((r) => r.objects === n && r.impl.startsWith('@protean'));
  const theirs = rows.find((r) => r.objects === n && r.impl.startsWith('@kubernetes'));
  if (ours !== undefined && theirs !== undefined) {
    console.log(`At ${n.toLocaleString('en-US')} objects: ours / client-node = ${(ours.bytes / theirs.bytes).toFixed(3)} (target <= 0.2)`);
  }
}
