// The object cache on a real kube-apiserver + etcd: API requests per pass,
// kube-apiserver CPU and passes per second during a burst of parent updates,
// with the handler reading through the API server (GET) and through the
// object cache (ctx.get, register with { cache: [parent, configmaps] }).
//
// Workload: one CRD (bench.protean.dev/v1 cacheparents), P parents
// (default 1,000) in `default`, each owning the ConfigMap `<parent>-child`.
// The handler does what the example's does, in both modes: read its parent,
// declare the scalar watch on its ConfigMap, read the ConfigMap (the "before"
// of the example), server-side apply it with the parent's spec.seq (force),
// and return. Mode `get` reads the two objects with KubeClient.find (a GET
// each); mode `cache` reads them with ctx.get. Writes are the same.
//
// Per round and mode: a fresh controller (4 workers, rate limits out of the
// way, no resync) is registered and left to reconcile every parent and go
// quiet; then U updates (default 20,000: 20 per parent) are sent as merge
// patches of spec.seq, 24 in flight over one keep-alive HTTPS agent (never two for one parent), parent
// k mod P; the measurement runs from the first update sent until the
// controller is quiet (no pass running, nothing queued, 500 ms without a
// pass) and every parent's ConfigMap holds its last seq. Reported per mode
// (median of the rounds): the handler's requests per pass (reads: GET; writes:
// PATCH), passes, passes per second over that window, and the kube-apiserver
// process's CPU time (utime + stime from /proc) over it. The modes alternate
// within each round on the same server. The informers' lists and watches are
// not the handler's requests and are not counted.
//
//   node --expose-gc objcache.mjs [--quick] [--updates=N] [--parents=N] [--rounds=N]
//   (through run.mjs: BENCH_OBJCACHE_UPDATES, BENCH_OBJCACHE_PARENTS, BENCH_OBJCACHE_ROUNDS)
import 'reflect-metadata';
import { KubeClient, KubeConfigTransport } from '@protean/client';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer } from '@protean/envtest';
import { parseArgs } from './lib/args.mjs';
import { createAll, defineParentKind, keepAliveClient, kubeBinDir } from './lib/cluster.mjs';
import { startComposedController } from './lib/e2eWorkload.mjs';
import { cpuMsOf, findPid } from './lib/procfs.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { median } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out', 'updates', 'parents', 'rounds']);
const quick = flags.quick === true;
const num = (flag, env, full, small) => Number(flags[flag] ?? process.env[env] ?? (quick ? small : full));
const PARENTS = num('parents', 'BENCH_OBJCACHE_PARENTS', 1_000, 200);
const UPDATES = num('updates', 'BENCH_OBJCACHE_UPDATES', 20_000, 2_000);
const ROUNDS = num('rounds', 'BENCH_OBJCACHE_ROUNDS', 3, 1);
const IN_FLIGHT = 24;
const QUIET_MS = 500;
const NAMESPACE = 'default';
const PARENT = { group: 'bench.protean.dev', version: 'v1', resource: 'cacheparents' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const CONFIG = { workers: 4, rateLimit: 100_000, burstLimit: 100_000, resyncPeriodMs: 0, queueShutdownTimeoutMs: 30_000 };
const MODES = ['get', 'cache'];
const parentPath = (i) => `/apis/${PARENT.group}/${PARENT.version}/namespaces/${NAMESPACE}/${PARENT.resource}/p-${i}`;

/** A KubeClient whose requests are counted by method. */
function countingClient(kubeConfig) {
  const inner = new KubeConfigTransport(kubeConfig);
  const counts = { GET: 0, PATCH: 0, other: 0 };
  const transport = {
    send(request) {
      if (request.method === 'GET' || request.method === 'PATCH') counts[request.method]++;
      else counts.other++;
      return inner.send(request);
    },
  };
  return { client: new KubeClient({ transport, fieldManager: 'objcache-bench' }), counts, close: () => inner.close() };
}

/** The handler of both modes; `seen` records the seq each parent's pass applied. */
function handlerFor(mode, client, seen, activity) {
  return async (req, ctx) => {
    activity.running++;
    activity.passes++;
    try {
      const { signal } = ctx;
      const parent = mode === 'cache' ? await ctx.get(PARENT, req.namespace, req.name) : await client.find(PARENT, req, { signal });
      if (parent === undefined) return;
      const child = { namespace: req.namespace, name: `${req.name}-child` };
      await ctx.watcher.watch({ nodeId: 'child', gvr: CONFIGMAPS, ...child });
      if (mode === 'cache') await ctx.get(CONFIGMAPS, child.namespace, child.name);
      else await client.find(CONFIGMAPS, child, { signal });
      const seq = String(parent.spec?.seq ?? 0);
      await client.apply(
        CONFIGMAPS,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...child }, data: { seq } },
        { force: true, signal },
      );
      seen.set(req.name, seq);
    } catch (err) {
      activity.errors++;
      activity.lastError = err;
      throw err;
    } finally {
      activity.running--;
      activity.lastAt = performance.now();
    }
  };
}

async function runMode(kc, http, mode, firstSeq, apiPid) {
  const { controller, stop } = startComposedController(kc, CONFIG);
  const { client, counts, close } = countingClient(kc);
  const seen = new Map();
  const activity = { lastSeq: new Map(), running: 0, passes: 0, sent: 0, errors: 0, lastError: undefined, lastAt: performance.now() };
  const quiet = () => activity.running === 0 && controller.queueLength() === 0 && performance.now() - activity.lastAt > QUIET_MS;
  const ticker = setInterval(() => {
    if (activity.lastError !== undefined) progress('objcache', `last handler error: ${String(activity.lastError?.message).slice(0, 300)}`);
    const s = `${mode}: ${activity.sent} updates answered, ${activity.passes} passes, ${seen.size} parents applied, ${activity.running} running, queue ${controller.queueLength()}, errors ${activity.errors}`;
    progress('objcache', s);
  }, 10_000);
  try {
    await controller.register(PARENT, handlerFor(mode, client, seen, activity), mode === 'cache' ? { cache: [PARENT, CONFIGMAPS] } : {});
    await waitFor(() => seen.size === PARENTS && quiet(), { message: 'every parent reconciled', timeoutMs: 600_000, intervalMs: 20 });
    progress('objcache', `${mode}: every parent reconciled; sending ${UPDATES} updates`);
    const before = { ...counts, passes: activity.passes, apiCpuMs: cpuMsOf(apiPid) };
    const lastSeq = activity.lastSeq;
    const started = performance.now();
    // Worker w sends the updates of the parents i ≡ w (mod IN_FLIGHT), one at a time, so a parent never has two in
    // flight and the last one sent is the last one stored.
    const worker = async (w) => {
      const mine = [];
      for (let k = 0; k < UPDATES; k++) if ((k % PARENTS) % IN_FLIGHT === w) mine.push(k);
      for (const k of mine) {
        const i = k % PARENTS;
        const seq = firstSeq + k;
        lastSeq.set(`p-${i}`, String(seq));
        await http.request('PATCH', parentPath(i), { spec: { seq } }, 'application/merge-patch+json');
        activity.sent++;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, (_, w) => worker(w)));
    const sentMs = performance.now() - started;
    const caughtUp = () => [...lastSeq].every(([name, seq]) => seen.get(name) === seq);
    await waitFor(() => caughtUp() && quiet(), {
      message: 'the controller to apply every last update',
      timeoutMs: 900_000,
      intervalMs: 20,
    });
    const windowMs = activity.lastAt - started;
    const passes = activity.passes - before.passes;
    return {
      mode,
      passes,
      readsPerPass: (counts.GET - before.GET) / passes,
      writesPerPass: (counts.PATCH - before.PATCH) / passes,
      otherRequests: counts.other - before.other,
      passesPerSecond: passes / (windowMs / 1000),
      apiCpuMs: apiPid === undefined ? undefined : cpuMsOf(apiPid) - before.apiCpuMs,
      windowMs,
      sentMs,
    };
  } finally {
    clearInterval(ticker);
    await stop();
    close();
  }
}

const rows = [];
const notes = [];
const details = { parents: PARENTS, updates: UPDATES, rounds: ROUNDS, config: CONFIG, runs: [] };
let server;
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void Promise.resolve(server?.stop()).finally(() => process.exit(130)));
try {
  progress('objcache', `starting etcd + kube-apiserver; ${PARENTS} parents, ${UPDATES} updates per burst, ${ROUNDS} round(s)`);
  server = await startKubeApiServer({ binDir: kubeBinDir() });
  const kc = server.kubeConfig;
  const apiPid = findPid(['kube-apiserver', `--secure-port=${new URL(server.url).port}`]);
  // A spec the server keeps (and whose changes bump metadata.generation); declared field by field, since client-node's
  // CRD model does not send an `x-kubernetes-preserve-unknown-fields` key written that way.
  const spec = { type: 'object', properties: { seq: { type: 'integer' } } };
  await defineParentKind(kc, PARENT, 'CacheParent', { type: 'object', properties: { spec } });
  const http = await keepAliveClient(kc);
  const body = (i) => ({
    apiVersion: `${PARENT.group}/${PARENT.version}`,
    kind: 'CacheParent',
    metadata: { name: `p-${i}`, namespace: NAMESPACE },
    spec: { seq: 0 },
  });
  await createAll(0, PARENTS, IN_FLIGHT, (i) =>
    http.request('POST', `/apis/${PARENT.group}/${PARENT.version}/namespaces/${NAMESPACE}/${PARENT.resource}`, body(i)),
  );
  let seq = 1;
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which mode goes first, so neither always meets the warmer server.
    for (const mode of round % 2 === 0 ? MODES : [...MODES].reverse()) {
      progress('objcache', `round ${round + 1}: ${mode}`);
      const r = await runMode(kc, http, mode, seq, apiPid);
      seq += UPDATES;
      details.runs.push({ round, ...r });
      progress('objcache', JSON.stringify(r));
    }
  }
  http.close();
  const size = `${PARENTS.toLocaleString('en-US')} parents, ${UPDATES.toLocaleString('en-US')} updates`;
  const med = (mode, key) => median(details.runs.filter((r) => r.mode === mode).map((r) => r[key]));
  for (const mode of MODES) {
    const label = mode === 'get' ? 'GET (no object cache)' : 'object cache (ctx.get)';
    const row = (measure, key, unit, cost, digits) =>
      rows.push({ measure: `${measure}, ${label}`, size, work: UPDATES, value: med(mode, key), unit, cost, digits });
    row('handler reads (GET) per pass', 'readsPerPass', '', 'direct', 2);
    row('handler writes (PATCH) per pass', 'writesPerPass', '', 'direct', 2);
    row('passes in the burst', 'passes', '', 'none', 0);
    row('passes per second', 'passesPerSecond', '/s', 'inverse', 0);
    if (apiPid !== undefined) row('kube-apiserver CPU during the burst', 'apiCpuMs', 'ms', 'direct', 0);
  }
  notes.push(
    `burst: ${UPDATES} merge patches of spec.seq, ${IN_FLIGHT} in flight (never two for one parent), to ${PARENTS} parents (k mod P); window from the first update to the last pass, once every ConfigMap holds its parent's last seq; median of ${ROUNDS} round(s), the modes alternating on one server`,
    `controller: workers ${CONFIG.workers}, no resync; the handler reads its parent and its ConfigMap, watches the ConfigMap, applies it (force)`,
  );
} finally {
  await server?.stop();
}

emitResult(flags, { name: 'objcache', title: 'Object cache on a real kube-apiserver', rows, notes, details });
