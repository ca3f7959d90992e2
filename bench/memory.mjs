// Informer memory: heap bytes per cached object, Protean's metadata-only
// KubernetesInformerSource, the same asked for full objects (the object
// cache: managedFields and the last-applied annotation dropped), versus
// @kubernetes/client-node's makeInformer (full objects, as served), on the same ConfigMaps (3 labels, 2 annotations, 1 KiB of
// data, server-written managedFields) served by the in-memory API server.
// Sizes: 10,000 and 100,000 objects (quick: 2,000 and 10,000).
//
// The API server runs in a worker thread (lib/apiserver.worker.mjs), whose V8
// heap is separate, so the heap measured here holds only the informer under
// test.
//
// Method: a warm-up run of each informer over 500 Secrets first loads and compiles
// their code. Then per informer and size: three forced full GCs (node
// --expose-gc) with a turn of the event loop after each, read heapUsed; start
// the informer and wait until it has listed every object; GC the same way and
// read heapUsed again; bytes per object = (after - before) / objects; stop it.
// One run per figure: the readings are deterministic to within a few bytes
// per object, unlike timings. Also reported: the process RSS after the
// warm-up (after GC), which includes the API-server worker and its 500
// Secrets, before any ConfigMap exists.
//
// With --client-go, also client-go's typed full informer, without and with
// the transform that drops managedFields (controller-runtime's default), on
// a real kube-apiserver filled with the same ConfigMaps (lib/memoryClientGo.mjs;
// needs Go and the kube binaries, PROTEAN_KUBE_BIN_DIR). Its objects differ
// from the in-memory server's only in what the server writes: uid,
// resourceVersion, creationTimestamp and one managedFields entry each.
// Median of --rounds runs (default 3), the two interleaved, a fresh process
// each.
//
//   node --expose-gc memory.mjs --quick --client-go --rounds=3
import { Worker } from 'node:worker_threads';
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import { KubernetesInformerSource, runInformer } from '@protean/watch-manager';
import { parseArgs } from './lib/args.mjs';
import { CLIENT_GO_CONTENDERS, measureClientGo } from './lib/memoryClientGo.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { sleep, tick } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out', 'client-go', 'rounds']);
const quick = flags.quick === true;
const withClientGo = flags['client-go'] === true;
const ROUNDS = flags.rounds === undefined ? 3 : Number(flags.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds must be an integer >= 1, got ${JSON.stringify(flags.rounds)}`);
const SIZES = quick ? [2_000, 10_000] : [10_000, 100_000];
// client-node's informer at 100,000 full objects takes about 300 MB here; lower
// this (e.g. BENCH_CLIENT_NODE_MAX=50000) on a machine where that is too much.
const CLIENT_NODE_MAX = Number(process.env.BENCH_CLIENT_NODE_MAX ?? SIZES.at(-1));
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

if (typeof globalThis.gc !== 'function') throw new Error('memory.mjs needs node --expose-gc (run.mjs passes it)');

const worker = new Worker(new URL('./lib/apiserver.worker.mjs', import.meta.url), {
  resourceLimits: { maxOldGenerationSizeMb: 8192 },
});
const inbox = [];
const waiting = [];
worker.on('message', (m) => (waiting.length > 0 ? waiting.shift()(m) : inbox.push(m)));
const workerFailed = new Promise((_, reject) => worker.once('error', reject));
const nextMessage = () =>
  Promise.race([inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise((r) => waiting.push(r)), workerFailed]);
const ask = (msg) => {
  worker.postMessage(msg);
  return nextMessage();
};

async function settledHeap() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await tick();
  }
  return process.memoryUsage();
}

async function waitUntil(cond) {
  while (!cond()) await sleep(10);
}

async function startOurs(kc, gvr) {
  const abort = new AbortController();
  const informer = runInformer(new KubernetesInformerSource({ kubeConfig: kc }).createListWatch(gvr), {}, abort.signal);
  await waitUntil(() => informer.hasSynced());
  return { size: () => informer.list().length, stop: async () => abort.abort() };
}

/** Our informer asked for full objects (the object cache: `ensureObjects`), with the default trim only. */
async function startOursFull(kc, gvr) {
  const abort = new AbortController();
  const listWatch = new KubernetesInformerSource({ kubeConfig: kc }).createListWatch(gvr, { objects: {} });
  const informer = runInformer(listWatch, {}, abort.signal, { holdsObjects: true });
  await waitUntil(() => informer.hasSynced());
  return { size: () => informer.list().length, stop: async () => abort.abort() };
}

async function startClientNode(kc, gvr) {
  const api = kc.makeApiClient(CoreV1Api);
  const list = gvr === SECRETS ? () => api.listSecretForAllNamespaces() : () => api.listConfigMapForAllNamespaces();
  const informer = makeInformer(kc, `/api/v1/${gvr.resource}`, list);
  informer.on('error', () => undefined);
  await informer.start();
  return { size: () => informer.list().length, stop: () => informer.stop() };
}

const informers = [
  { measure: 'heap B/object, ours (metadata-only)', start: startOurs, max: Infinity },
  { measure: 'heap B/object, ours (full objects, object cache)', start: startOursFull, max: Infinity },
  { measure: 'heap B/object, client-node makeInformer (full)', start: startClientNode, max: CLIENT_NODE_MAX },
];

async function measure(start, kc, objects) {
  const before = await settledHeap();
  const startedAt = performance.now();
  const handle = await start(kc, CONFIGMAPS);
  const syncMs = performance.now() - startedAt;
  const after = await settledHeap();
  const cached = handle.size();
  await handle.stop();
  if (cached !== objects) throw new Error(`the informer cached ${cached} objects, expected ${objects}`);
  return { bytesPerObject: (after.heapUsed - before.heapUsed) / objects, syncMs, rssAfterMb: after.rss / 2 ** 20 };
}

const rows = [];
const details = [];
try {
  const ready = await nextMessage();
  const kc = new KubeConfig();
  kc.loadFromString(ready.kubeConfig);

  progress('memory', 'warm-up over 500 Secrets');
  await ask({ type: 'warmup', count: 500 });
  for (const { start } of informers) await (await start(kc, SECRETS)).stop();
  const warm = await settledHeap();

  let populated = 0;
  const results = new Map();
  for (const n of SIZES) {
    progress('memory', `creating ConfigMaps up to ${n.toLocaleString('en-US')}`);
    await ask({ type: 'populate', from: populated, to: n });
    populated = n;
    for (const inf of informers) {
      if (n > inf.max) continue;
      progress('memory', `${inf.measure} at ${n.toLocaleString('en-US')} objects`);
      const r = await measure(inf.start, kc, n);
      results.set(`${inf.measure}@${n}`, r);
      details.push({ informer: inf.measure, objects: n, ...r });
    }
  }
  if (withClientGo) {
    const goResults = await measureClientGo(SIZES, ROUNDS);
    for (const c of CLIENT_GO_CONTENDERS) {
      for (const n of SIZES) {
        const r = goResults.get(`${c.measure}@${n}`);
        results.set(`${c.measure}@${n}`, r);
        for (const run of r.runs) details.push({ informer: c.measure, objects: n, ...run });
      }
    }
  }
  for (const inf of [...informers, ...(withClientGo ? CLIENT_GO_CONTENDERS : [])]) {
    for (const n of SIZES) {
      const r = results.get(`${inf.measure}@${n}`);
      if (r !== undefined)
        rows.push({
          measure: inf.measure,
          size: `${n.toLocaleString('en-US')} objects`,
          work: n,
          value: r.bytesPerObject,
          unit: 'B',
          cost: 'direct',
          digits: 0,
        });
    }
  }
  for (const n of SIZES) {
    const ours = results.get(`${informers[0].measure}@${n}`);
    const full = results.get(`${informers[1].measure}@${n}`);
    const theirs = results.get(`${informers[2].measure}@${n}`);
    if (full !== undefined && theirs !== undefined) {
      rows.push({
        measure: 'ours full objects / client-node heap per object',
        size: `${n.toLocaleString('en-US')} objects`,
        work: n,
        value: full.bytesPerObject / theirs.bytesPerObject,
        unit: '',
        cost: 'none',
        digits: 3,
      });
    }
    if (ours !== undefined && theirs !== undefined) {
      rows.push({
        measure: 'ours / client-node heap per object',
        size: `${n.toLocaleString('en-US')} objects`,
        work: n,
        value: ours.bytesPerObject / theirs.bytesPerObject,
        unit: '',
        cost: 'none',
        digits: 3,
      });
    }
  }
  rows.push({
    measure: 'process RSS after warm-up (incl. server worker)',
    size: '500 Secrets',
    work: 500,
    value: warm.rss / 2 ** 20,
    unit: 'MiB',
    cost: 'none',
    digits: 0,
  });
  rows.push({
    measure: 'process heapUsed after warm-up (main thread)',
    size: '500 Secrets',
    work: 500,
    value: warm.heapUsed / 2 ** 20,
    unit: 'MiB',
    cost: 'none',
    digits: 1,
  });
} finally {
  worker.postMessage({ type: 'stop' });
  await new Promise((resolve) => worker.once('exit', resolve));
}

const skipped = SIZES.filter((n) => n > CLIENT_NODE_MAX);
emitResult(flags, {
  name: 'memory',
  title: 'Informer heap per cached object',
  rows,
  notes: [
    '(heapUsed after sync - before) / objects after forced full GCs, one run per figure after a warm-up of each informer; API server in a worker thread',
    ...(withClientGo
      ? [
          `client-go (v0.36.3, typed informer, full objects): median of ${ROUNDS} runs, a fresh process each, on a real kube-apiserver with the same ConfigMaps; HeapAlloc after GC (sync) - before the informer started`,
        ]
      : []),
    ...(skipped.length > 0 ? [`client-node not run at ${skipped.join(', ')} objects (BENCH_CLIENT_NODE_MAX=${CLIENT_NODE_MAX})`] : []),
  ],
  details,
});
