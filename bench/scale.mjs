// The scale benchmark: a DynamicController whose one parent kind declares a
// collection watch on each of 200 CRDs holding 500 objects each (100,000
// objects), on a real kube-apiserver + etcd (startKubeApiServer from
// @protean/envtest), before and after streaming lists and a shared
// connection.
//
// Set-up (this process, timed in the setup rows): 200 namespaced CRDs
// kind000s..kind199s.scale.bench.protean.dev (schema: any fields) created
// 32 at a time and waited for until Established and served; 500 objects of
// each (o-0..o-499 in `default`, label parent=p<j mod 4>, spec { index, seq })
// created 48 at a time over one keep-alive HTTPS agent, interleaved over the
// kinds; one parent CRD scaleparents.bench.protean.dev with 4 instances
// p0..p3. Quick: 20 kinds x 100 objects, 2 parents, 2,000 updates.
//
// Per run: kube-apiserver is restarted (same etcd data) so each run meets a
// fresh server process, and every kind is listed once (limit=1) so its watch
// cache is built before the run starts. Then the controller under test starts
// in a child Node process (lib/scale.child.mjs, --expose-gc), composed as an
// application composes it (core, queue, watch-manager, coordinator modules;
// 4 workers, no resync, retry rate limit 10,000/s). It registers the parent
// kind; the parent's handler declares, for its instance p<n>, a collection
// watch with selector parent=p<n> on every one of the 200 kinds at once
// (Promise.all), so 200 informers start together. Measured:
//   - time from register() until every child informer has synced and every
//     parent instance finished its first pass; also when register() resolved
//     (the parent informer synced) and when the first/median/last informer synced;
//   - the child's CPU (process.cpuUsage, user + system) over that window, per
//     1,000 events the watch manager handed the controller;
//   - the child's peak RSS (VmHWM) and peak heapUsed (sampled every 50 ms) in
//     that window, and its RSS and heapUsed after 1 s and three forced GCs;
//   - the child's TCP connections to the API server's port (its /proc/<pid>/fd
//     socket inodes joined with /proc/<pid>/net/tcp{,6}), sampled every 100 ms
//     by this process: the peak during the sync and the count once settled;
//   - the API server's RSS (sampled every 100 ms, and VmHWM after resetting it
//     just before register) and CPU (/proc/<pid>/stat) during the sync;
//   - an update burst: 20,000 merge patches of spec.seq spread evenly over the
//     kinds (100 objects of each), 32 in flight over one keep-alive agent,
//     until the controller has seen every update event and is quiet (queue
//     empty, no handler running); its CPU per 1,000 update events (each update
//     re-runs the matching parent's handler, which re-declares its 200 watches).
// Modes: before = streamingList 'never' + connection 'per-request';
// streaming-only = 'auto' + 'per-request'; shared-only = 'never' + 'shared';
// after = 'auto' + 'shared'. Whether @protean/watch-manager has the
// `connection` option is detected at start; without it only the per-request
// modes run (today's code always opens one connection per request) and the
// option is not passed. Modes are interleaved run by run; medians of the runs
// are reported (2 runs per mode, quick 1; --runs=N, --modes=a,b; the median of
// an even count is the mean of the middle two). --kinds=, --objects= (per kind)
// and --updates= change the sizes, for experiments.
import { execFileSync, fork } from 'node:child_process';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startKubeApiServer } from '@protean/envtest';
import { KubernetesInformerSource } from '@protean/watch-manager';
import { parseArgs } from './lib/args.mjs';
import { createAll, crdManifest, keepAliveClient, kubeBinDir, statusOf } from './lib/cluster.mjs';
import { cpuMsOf, findPid, resetPeakRss, statusBytes, tcpConnectionsTo } from './lib/procfs.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { sleep } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out', 'modes', 'runs', 'kinds', 'objects', 'updates']);
const quick = flags.quick === true;
/** A positive integer flag, or `fallback` when it is not given. */
function sizeFlag(name, fallback) {
  if (flags[name] === undefined) return fallback;
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be an integer >= 1, got ${JSON.stringify(flags[name])}`);
  return n;
}
const KINDS = sizeFlag('kinds', quick ? 20 : 200);
const OBJECTS_PER_KIND = sizeFlag('objects', quick ? 100 : 500);
const PARENTS = quick ? 2 : 4;
const UPDATES = sizeFlag('updates', quick ? 2_000 : 20_000);
const RUNS = flags.runs === undefined ? (quick ? 1 : 2) : Number(flags.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs must be an integer >= 1, got ${JSON.stringify(flags.runs)}`);
const CRD_CONCURRENCY = 32;
const CREATE_CONCURRENCY = 48;
const UPDATE_CONCURRENCY = 32;
const NAMESPACE = 'default';
const GROUP = 'scale.bench.protean.dev';
const CONFIG = { workers: 4, rateLimit: 10_000, burstLimit: 10_000, resyncPeriodMs: 0, queueShutdownTimeoutMs: 30_000 };

const MODES = {
  before: { streamingList: 'never', connection: 'per-request', label: 'before: paged LIST, per-request' },
  'streaming-only': { streamingList: 'auto', connection: 'per-request', label: 'streaming list, per-request' },
  'shared-only': { streamingList: 'never', connection: 'shared', label: 'paged LIST, shared connection' },
  after: { streamingList: 'auto', connection: 'shared', label: 'after: streaming list, shared' },
};
const requested = typeof flags.modes === 'string' ? flags.modes.split(',').filter((m) => m !== '') : Object.keys(MODES);
const unknownModes = requested.filter((m) => !(m in MODES));
if (unknownModes.length > 0) throw new Error(`--modes: unknown mode ${unknownModes.join(', ')}; known: ${Object.keys(MODES).join(', ')}`);

/** The median of `xs`, the mean of the middle two for an even count. */
function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The checked-out commit, so results name the library code they measured. */
function gitHead() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

const kindName = (i) => `Kind${String(i).padStart(3, '0')}`;
const CHILDREN = Array.from({ length: KINDS }, (_, i) => ({ group: GROUP, version: 'v1', resource: `${kindName(i).toLowerCase()}s` }));
const PARENT = { group: 'bench.protean.dev', version: 'v1', resource: 'scaleparents' };
const collectionPath = (gvr) => `/apis/${gvr.group}/${gvr.version}/namespaces/${NAMESPACE}/${gvr.resource}`;
const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * Whether @protean/watch-manager has `KubernetesInformerSourceOptions.connection`:
 * it depends on @protean/transport, or its source rejects an unknown
 * `connection` value naming the option. Returns { available, how }.
 */
function detectConnectionOption(kubeConfig) {
  const require = createRequire(import.meta.url);
  const pkg = JSON.parse(readFileSync(require.resolve('@protean/watch-manager/package.json'), 'utf8'));
  const deps = { ...pkg.dependencies, ...pkg.peerDependencies };
  if ('@protean/transport' in deps) return { available: true, how: '@protean/watch-manager depends on @protean/transport' };
  try {
    new KubernetesInformerSource({ kubeConfig, connection: 'not-a-connection-mode' });
  } catch (err) {
    if (/connection/i.test(String(err?.message)))
      return { available: true, how: `an unknown connection value is rejected (${err.message})` };
  }
  return { available: false, how: 'no @protean/transport dependency and an unknown connection value is accepted silently' };
}

/** The kinds' schema: a spec of two integers. */
const KIND_SCHEMA = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { index: { type: 'integer' }, seq: { type: 'integer' } } } },
};

/** Creates the CRDs and waits until each is Established and a LIST of it answers. */
async function defineKinds(client, kinds) {
  await createAll(0, kinds.length, CRD_CONCURRENCY, (i) =>
    client.request(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crdManifest(kinds[i].gvr, kinds[i].kind, KIND_SCHEMA),
    ),
  );
  const names = new Set(kinds.map((k) => `${k.gvr.resource}.${k.gvr.group}`));
  const deadline = performance.now() + 300_000;
  for (;;) {
    const list = JSON.parse(await client.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'));
    const established = list.items.filter(
      (crd) => names.has(crd.metadata.name) && crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'),
    );
    if (established.length === names.size) break;
    if (performance.now() > deadline) throw new Error(`only ${established.length} of ${names.size} CRDs Established after 300 s`);
    await sleep(250);
  }
  await primeKinds(
    client,
    kinds.map((k) => k.gvr),
  );
}

/** Lists every kind once (limit=1) until it answers: the kind is served and its watch cache built. */
async function primeKinds(client, gvrs) {
  await createAll(0, gvrs.length, CRD_CONCURRENCY, async (i) => {
    const deadline = performance.now() + 300_000;
    for (;;) {
      try {
        await client.request('GET', `${collectionPath(gvrs[i])}?limit=1`);
        return;
      } catch (err) {
        const status = statusOf(err);
        if ((status !== 404 && status !== 503) || performance.now() > deadline) throw err;
        await sleep(100);
      }
    }
  });
}

const object = (gvr, kind, j, seq) => ({
  apiVersion: `${gvr.group}/${gvr.version}`,
  kind,
  metadata: { name: `o-${j}`, namespace: NAMESPACE, labels: { parent: `p${j % PARENTS}` } },
  spec: { index: j, seq },
});

/** Wraps a forked child's IPC messages: next(type) resolves with the next message of that type. */
function channel(child) {
  const queue = [];
  let waiting;
  let failure;
  const deliver = () => {
    if (waiting === undefined) return;
    if (failure !== undefined) {
      waiting.reject(failure);
      waiting = undefined;
      return;
    }
    const i = queue.findIndex((m) => m.type === waiting.type);
    if (i >= 0) {
      const [msg] = queue.splice(i, 1);
      waiting.resolve(msg);
      waiting = undefined;
    }
  };
  child.on('message', (msg) => {
    if (msg.type === 'error') failure = new Error(`controller process failed: ${msg.message}`);
    else queue.push(msg);
    deliver();
  });
  child.once('exit', (code, signal) => {
    failure ??= new Error(`controller process exited (${signal ?? `code ${code}`})`);
    deliver();
  });
  return {
    next: (type, timeoutMs = 900_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${type} message from the controller process within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiting = {
          type,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        deliver();
      }),
  };
}

let burstSeq = 0;

/** Sends the update burst: UPDATES merge patches of spec.seq, update k to kind k mod KINDS. */
async function sendUpdates(client) {
  const base = ++burstSeq * UPDATES;
  let next = 0;
  const worker = async () => {
    for (;;) {
      const k = next++;
      if (k >= UPDATES) return;
      const gvr = CHILDREN[k % KINDS];
      const j = Math.floor(k / KINDS) % OBJECTS_PER_KIND;
      await client.request('PATCH', `${collectionPath(gvr)}/o-${j}`, { spec: { seq: base + k } }, 'application/merge-patch+json');
    }
  };
  await Promise.all(Array.from({ length: UPDATE_CONCURRENCY }, worker));
}

/** One run of `mode`: a fresh API server process and a fresh controller process. */
async function runOnce(server, client, modeName, connection) {
  const mode = MODES[modeName];
  await server.restart();
  const port = Number(new URL(server.url).port);
  const apiPid = findPid(['kube-apiserver', `--secure-port=${port}`]);
  await primeKinds(client, [...CHILDREN, PARENT]);
  await sleep(2000);
  const apiRssBefore = apiPid === undefined ? undefined : statusBytes(apiPid, 'VmRSS');

  const informerOptions = { streamingList: mode.streamingList, ...(connection.available ? { connection: mode.connection } : {}) };
  const child = fork(fileURLToPath(new URL('./lib/scale.child.mjs', import.meta.url)), [], {
    cwd: here,
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ipc = channel(child);
  try {
    child.send({
      type: 'init',
      kubeConfig: server.kubeConfig.exportConfig(),
      informerOptions,
      parent: PARENT,
      children: CHILDREN,
      parents: PARENTS,
      config: CONFIG,
    });
    const ready = await ipc.next('ready', 60_000);

    const sockets = { peak: 0, peakEstablished: 0 };
    let apiRssPeakSampled = 0;
    const sample = () => {
      const c = tcpConnectionsTo(child.pid, port);
      if (c.total > sockets.peak) sockets.peak = c.total;
      if (c.established > sockets.peakEstablished) sockets.peakEstablished = c.established;
      const rss = apiPid === undefined ? undefined : statusBytes(apiPid, 'VmRSS');
      if (rss !== undefined && rss > apiRssPeakSampled) apiRssPeakSampled = rss;
    };
    const hwmReset = apiPid !== undefined && resetPeakRss(apiPid);
    const apiCpu0 = apiPid === undefined ? undefined : cpuMsOf(apiPid);
    const sampler = setInterval(sample, 100);
    child.send({ type: 'sync' });
    const synced = await ipc.next('synced');
    clearInterval(sampler);
    sample();
    const apiCpuSync = apiCpu0 === undefined ? undefined : cpuMsOf(apiPid) - apiCpu0;
    const apiHwm = hwmReset ? statusBytes(apiPid, 'VmHWM') : undefined;
    const apiRssPeak = Math.max(apiRssPeakSampled, apiHwm ?? 0) || undefined;

    child.send({ type: 'settle' });
    const { memory: settled } = await ipc.next('settled', 60_000);
    const socketsSettled = tcpConnectionsTo(child.pid, port);
    const apiRssSettled = apiPid === undefined ? undefined : statusBytes(apiPid, 'VmRSS');

    child.send({ type: 'burst', expected: UPDATES });
    await ipc.next('burst-ready', 60_000);
    const apiCpu1 = apiPid === undefined ? undefined : cpuMsOf(apiPid);
    const sendStarted = performance.now();
    await sendUpdates(client);
    const sendMs = performance.now() - sendStarted;
    const burstDone = await ipc.next('burst-done', 600_000);
    const apiCpuBurst = apiCpu1 === undefined ? undefined : cpuMsOf(apiPid) - apiCpu1;
    const socketsAfterBurst = tcpConnectionsTo(child.pid, port);
    child.send({ type: 'stop' });
    const code = await exited;
    if (code !== 0) throw new Error(`controller process exited with code ${code} after the run`);

    const syncEvents = synced.events.initial + synced.events.add + synced.events.update + synced.events.parent;
    return {
      mode: modeName,
      loadAverage: loadavg(),
      baseline: ready.baseline,
      sync: { ...synced, events: synced.events, eventsTotal: syncEvents, cpuPer1000Events: (synced.cpuMs / syncEvents) * 1000 },
      settled,
      sockets: { peak: sockets.peak, peakEstablished: sockets.peakEstablished, settled: socketsSettled, afterBurst: socketsAfterBurst },
      apiServer: {
        pid: apiPid,
        rssBefore: apiRssBefore,
        rssPeakDuringSync: apiRssPeak,
        rssSettled: apiRssSettled,
        cpuMsSync: apiCpuSync,
        cpuMsBurst: apiCpuBurst,
      },
      burst: { ...burstDone, sendMs, cpuPer1000Events: (burstDone.cpuMs / burstDone.updates) * 1000 },
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

const MiB = 1024 * 1024;
/** Row builders: each takes a run and returns the figure, or undefined. */
const MEASURES = [
  { measure: `register → all ${KINDS} informers synced + first passes`, unit: 's', digits: 2, of: (r) => r.sync.totalMs / 1000 },
  { measure: 'register() resolved (parent informer synced)', unit: 'ms', digits: 0, of: (r) => r.sync.registeredMs },
  { measure: 'median child informer synced', unit: 's', digits: 2, of: (r) => r.sync.informerSyncedMs.p50 / 1000 },
  { measure: 'controller CPU per 1,000 events, initial sync', unit: 'ms', digits: 1, of: (r) => r.sync.cpuPer1000Events },
  { measure: 'controller CPU per 1,000 events, update burst', unit: 'ms', digits: 1, of: (r) => r.burst.cpuPer1000Events },
  { measure: 'controller peak RSS (to end of sync)', unit: 'MiB', digits: 0, of: (r) => r.sync.peakRss / MiB },
  { measure: 'controller peak heapUsed during sync', unit: 'MiB', digits: 0, of: (r) => r.sync.peakHeapUsed / MiB },
  { measure: 'controller RSS after sync + GC', unit: 'MiB', digits: 0, of: (r) => r.settled.rss / MiB },
  { measure: 'controller heapUsed after sync + GC', unit: 'MiB', digits: 1, of: (r) => r.settled.heapUsed / MiB },
  { measure: 'controller TCP connections to API server, peak', unit: '', digits: 0, of: (r) => r.sockets.peak },
  { measure: 'controller TCP connections to API server, settled', unit: '', digits: 0, of: (r) => r.sockets.settled.total },
  {
    measure: 'API server RSS peak during sync - before',
    unit: 'MiB',
    digits: 0,
    of: (r) => (r.apiServer.rssPeakDuringSync === undefined ? undefined : (r.apiServer.rssPeakDuringSync - r.apiServer.rssBefore) / MiB),
  },
  {
    measure: 'API server RSS peak during sync',
    unit: 'MiB',
    digits: 0,
    of: (r) => (r.apiServer.rssPeakDuringSync === undefined ? undefined : r.apiServer.rssPeakDuringSync / MiB),
  },
  { measure: 'API server CPU during sync', unit: 's', digits: 2, of: (r) => (r.apiServer.cpuMsSync ?? NaN) / 1000 },
  {
    measure: `update burst: ${UPDATES.toLocaleString('en-US')} patches until all seen`,
    unit: 's',
    digits: 2,
    of: (r) => r.burst.allSeenMs / 1000,
  },
];

const rows = [];
const notes = [];
const runs = [];
const details = {
  config: CONFIG,
  kinds: KINDS,
  objectsPerKind: OBJECTS_PER_KIND,
  parents: PARENTS,
  updates: UPDATES,
  runsPerMode: RUNS,
  runs,
};
let server;
let client;
let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    progress('scale', `${signal}: stopping kube-apiserver and etcd`);
    client?.close();
    void Promise.resolve(server?.stop()).finally(() => process.exit(130));
  });
}

try {
  const binDir = kubeBinDir();
  progress('scale', `starting etcd + kube-apiserver from ${binDir}`);
  let t = performance.now();
  server = await startKubeApiServer({ binDir });
  rows.push({
    measure: 'setup: start etcd + kube-apiserver',
    size: '-',
    work: 1,
    value: (performance.now() - t) / 1000,
    unit: 's',
    cost: 'none',
  });
  client = await keepAliveClient(server.kubeConfig);

  const connection = detectConnectionOption(server.kubeConfig);
  const modes = requested.filter((m) => connection.available || MODES[m].connection === 'per-request');
  const skipped = requested.filter((m) => !modes.includes(m));
  details.connectionOption = connection;
  details.commitAtStart = gitHead();
  details.modes = modes;
  progress('scale', `connection option ${connection.available ? 'available' : 'absent'}: ${connection.how}`);
  if (modes.length === 0) throw new Error(`no mode of ${requested.join(', ')} can run without the connection option`);

  const kinds = [...CHILDREN.map((gvr, i) => ({ gvr, kind: kindName(i) })), { gvr: PARENT, kind: 'ScaleParent' }];
  progress('scale', `creating ${kinds.length} CRDs`);
  t = performance.now();
  await defineKinds(client, kinds);
  rows.push({
    measure: `setup: ${kinds.length} CRDs until Established and served`,
    size: '-',
    work: 1,
    value: (performance.now() - t) / 1000,
    unit: 's',
    cost: 'none',
  });

  const total = KINDS * OBJECTS_PER_KIND;
  progress('scale', `creating ${total} objects (${CREATE_CONCURRENCY} in flight)`);
  t = performance.now();
  await createAll(0, total, CREATE_CONCURRENCY, (i) => {
    const k = i % KINDS;
    const j = Math.floor(i / KINDS);
    return client.request('POST', collectionPath(CHILDREN[k]), object(CHILDREN[k], kindName(k), j, 0));
  });
  await createAll(0, PARENTS, PARENTS, (p) =>
    client.request('POST', collectionPath(PARENT), {
      apiVersion: `${PARENT.group}/${PARENT.version}`,
      kind: 'ScaleParent',
      metadata: { name: `p${p}`, namespace: NAMESPACE },
    }),
  );
  const createRate = (total + PARENTS) / ((performance.now() - t) / 1000);
  rows.push({
    measure: `setup: create objects (${CREATE_CONCURRENCY} in flight, keep-alive)`,
    size: `${(total + PARENTS).toLocaleString('en-US')} objects`,
    work: total + PARENTS,
    value: createRate,
    unit: 'objects/s',
    cost: 'none',
  });

  for (let run = 0; run < RUNS; run++) {
    for (const mode of modes) {
      progress(
        'scale',
        `run ${run + 1}/${RUNS}, mode ${mode} (load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')})`,
      );
      const result = await runOnce(server, client, mode, connection);
      runs.push(result);
      progress(
        'scale',
        `  synced in ${(result.sync.totalMs / 1000).toFixed(2)} s, ${result.sync.cpuPer1000Events.toFixed(1)} ms CPU/1k events, ` +
          `sockets peak ${result.sockets.peak} settled ${result.sockets.settled.total}, RSS ${(result.settled.rss / MiB).toFixed(0)} MiB, ` +
          `heap ${(result.settled.heapUsed / MiB).toFixed(1)} MiB; burst ${result.burst.cpuPer1000Events.toFixed(1)} ms CPU/1k; ` +
          `API server +${(((result.apiServer.rssPeakDuringSync ?? 0) - (result.apiServer.rssBefore ?? 0)) / MiB).toFixed(0)} MiB; list modes ${JSON.stringify(result.sync.listModes)}`,
      );
    }
  }

  const size = `${KINDS} kinds x ${OBJECTS_PER_KIND}`;
  for (const m of MEASURES) {
    for (const mode of modes) {
      const values = runs
        .filter((r) => r.mode === mode)
        .map(m.of)
        .filter((v) => v !== undefined && !Number.isNaN(v));
      rows.push({
        measure: m.measure,
        size: `${size}, ${MODES[mode].label}`,
        work: 1,
        value: values.length === 0 ? undefined : median(values),
        unit: m.unit,
        digits: m.digits,
        cost: 'direct',
      });
    }
  }

  notes.push(
    `${KINDS} CRDs x ${OBJECTS_PER_KIND} objects, ${PARENTS} parent instances each declaring a collection watch (selector parent=p<n>) on every kind; ` +
      `controller in a child process: workers ${CONFIG.workers}, resync off; median of ${RUNS} run(s) per mode, modes interleaved, fresh kube-apiserver process per run`,
  );
  notes.push(
    `connection option ${connection.available ? 'present' : 'absent'} (${connection.how}); ran ${modes.join(', ')}` +
      (skipped.length > 0 ? `; not run: ${skipped.join(', ')} (they need it)` : '') +
      (connection.available
        ? ''
        : '; the per-request modes ran without passing the option (one TCP+TLS connection per LIST and WATCH is the only behaviour)'),
  );
  notes.push(`"vs smallest size" compares each mode with the first mode run (${MODES[modes[0]].label}): cost ×0.5 = half of it`);
  for (const mode of modes) {
    const mine = runs.filter((r) => r.mode === mode);
    const range = (f, d = 2) => {
      const v = mine.map(f);
      return `${Math.min(...v).toFixed(d)}-${Math.max(...v).toFixed(d)}`;
    };
    const r0 = mine[0];
    notes.push(
      `${mode}: sync ${range((r) => r.sync.totalMs / 1000)} s over runs; first/median/last informer synced ${(r0.sync.informerSyncedMs.first / 1000).toFixed(2)}/` +
        `${(r0.sync.informerSyncedMs.p50 / 1000).toFixed(2)}/${(r0.sync.informerSyncedMs.last / 1000).toFixed(2)} s (run 1); ` +
        `list modes ${JSON.stringify(r0.sync.listModes)}; sync events ${r0.sync.eventsTotal}, handler passes during sync ${r0.sync.passes}; ` +
        `burst: ${r0.burst.updates} updates, ${r0.burst.passes} handler passes (${(r0.burst.cpuMs / Math.max(1, r0.burst.passes)).toFixed(2)} ms controller CPU per pass), ` +
        `sent in ${(r0.burst.sendMs / 1000).toFixed(1)} s; ` +
        `API server CPU in burst ${((r0.apiServer.cpuMsBurst ?? NaN) / 1000).toFixed(1)} s; warnings logged ${r0.burst.logged.warn}, errors ${r0.burst.logged.error}, handler errors ${r0.burst.handlerErrors}; ` +
        `load average at start ${mine.map((r) => r.loadAverage[0].toFixed(1)).join(', ')}`,
    );
  }
  details.commitAtEnd = gitHead();
  notes.push(
    `commit ${details.commitAtStart}${details.commitAtEnd === details.commitAtStart ? '' : ` at start, ${details.commitAtEnd} at the end (library code may have changed between runs)`}`,
  );
} finally {
  client?.close();
  await server?.stop();
}

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/scale.json', import.meta.url),
  `${JSON.stringify({ writtenAt: new Date().toISOString(), quick, rows, notes, details }, null, 2)}\n`,
);
emitResult(flags, {
  name: 'scale',
  title: `Scale: ${KINDS} CRDs x ${OBJECTS_PER_KIND} objects on a real kube-apiserver`,
  rows,
  notes,
  details,
});
