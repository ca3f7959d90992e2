// The anchor: Protean's metadata informers against client-go's on the same
// kube-apiserver and the same objects. One real kube-apiserver + etcd
// (startKubeApiServer from @protean/envtest) per size; the CRDs and objects
// are created once per size; then each contender runs in a fresh process of
// its own, interleaved round by round, and the medians and the ratios
// Protean / client-go are printed.
//
// Contenders (each starts one metadata informer per CRD, all namespaces, at
// once, waits until every one has synced, settles and reports one JSON line):
//   - client-go: the Go program in client-go-anchor/ (client-go v0.36.3,
//     metadatainformer on one shared HTTP client, no client-side rate limit),
//     built here and cached under ~/.cache/protean (lib/clientGoAnchor.mjs);
//     'client-go' is its default (streaming lists, the WatchListClient
//     feature on), 'client-go-paged' runs with KUBE_FEATURE_WatchListClient=false;
//   - Protean: lib/anchor.protean.mjs (InformerWatchManager over a
//     KubernetesInformerSource, one shared connection pool), 'protean' with
//     streamingList 'auto' (streaming lists), 'protean-paged' with 'never'
//     (paged LISTs, the default); 'protean-paged-small-windows' (only when
//     named in --contenders) pages with smaller HTTP/2 windows.
// Before every run kube-apiserver is restarted (same etcd data) and the
// bench waits until every kind's watch cache is ready (a WATCH from
// resourceVersion 0 answers 200, not 429) and then until the server is idle
// (under 10% of a core for 2 s in a row: in the recorded runs it was busy for
// up to 19 s after its caches were ready), so each run meets a fresh
// server process with its watch caches built and nothing else to do.
//
// Per run: time from the start of the informers until all synced; the
// process's RSS when it started, before any informer started (after a forced
// collection: Go: runtime.GC; Node: three gc() in a process of its own started
// as the run's and stopped there, since a collection forced in the measured
// run would change what V8 does during and after the sync) and after the
// sync + GC (Go: runtime.GC, 1 s, debug.FreeOSMemory; Node: three gc(), 1 s,
// three gc()); heap after GC (Go: HeapAlloc / HeapInuse; Node: heapUsed /
// heapTotal); its CPU during the sync (getrusage / process.cpuUsage); the API
// server's CPU during the sync (/proc/<pid>/stat); its TCP connections to the
// API server (sampled every 100 ms from here: the peak, and once synced).
//
//   node --expose-gc anchor.mjs                 200 x 500, 1,000 x 100, 1 x 100,000; 3 rounds
//   node --expose-gc anchor.mjs --quick         20 x 50 and 1 x 1,000; 1 round
//   node --expose-gc anchor.mjs --sizes=200x500 --rounds=5 --contenders=client-go,protean
import { spawn } from 'node:child_process';
import https from 'node:https';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKubeApiServer } from '@protean/envtest';
import { parseArgs } from './lib/args.mjs';
import { BUNDLED_ANCHOR, bundleProteanAnchor } from './lib/bundle.mjs';
import { clientGoAnchorBinary } from './lib/clientGoAnchor.mjs';
import { createAll, crdManifest, keepAliveClient, kubeBinDir } from './lib/cluster.mjs';
import { cpuMsOf, findPid, tcpConnectionsTo } from './lib/procfs.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { median, sleep } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out', 'sizes', 'rounds', 'contenders']);
const quick = flags.quick === true;
const here = fileURLToPath(new URL('.', import.meta.url));

/** Parses "200x500,1x100000" into [{ kinds, objects }]. */
function parseSizes(text) {
  return text.split(',').map((s) => {
    const match = /^(\d+)x(\d+)$/.exec(s.trim());
    if (match === null || Number(match[1]) < 1 || Number(match[2]) < 1) {
      throw new Error(`--sizes: ${JSON.stringify(s)} is not <kinds>x<objects per kind>, e.g. 200x500`);
    }
    return { kinds: Number(match[1]), objects: Number(match[2]) };
  });
}
const SIZES = parseSizes(typeof flags.sizes === 'string' ? flags.sizes : quick ? '20x50,1x1000' : '200x500,1000x100,1x100000');
const ROUNDS = flags.rounds === undefined ? (quick ? 1 : 3) : Number(flags.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds must be an integer >= 1, got ${JSON.stringify(flags.rounds)}`);

const CONTENDERS = {
  'client-go': { label: 'client-go streaming (default)', side: 'client-go', env: { KUBE_FEATURE_WatchListClient: undefined } },
  'client-go-paged': { label: 'client-go paged', side: 'client-go', env: { KUBE_FEATURE_WatchListClient: 'false' } },
  protean: { label: 'Protean streaming (auto)', side: 'protean', streamingList: 'auto' },
  'protean-paged': { label: 'Protean paged (never, the default)', side: 'protean', streamingList: 'never' },
  // Not run unless named in --contenders: paged with every LIST at once (listConcurrency: Infinity; the default is 16).
  'protean-paged-uncapped': {
    label: 'Protean paged, every LIST at once',
    side: 'protean',
    streamingList: 'never',
    args: ['--list-concurrency=Infinity'],
  },
  // Not run unless named in --contenders: paged with 1 MiB stream and 4 MiB connection windows (the pool's are 4 and 32 MiB).
  'protean-paged-small-windows': {
    label: 'Protean paged, windows 1/4 MiB',
    side: 'protean',
    streamingList: 'never',
    args: ['--stream-window=1048576', '--connection-window=4194304'],
  },
};
/** Debian's jemalloc (package libjemalloc2), for `malloc=jemalloc`. */
const JEMALLOC = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';
// A Protean contender with the process tuned, `<contender>:<tuning>[:<tuning>...]`: `semi=<MiB>` bounds V8's young
// generation (`--max-semi-space-size`, as the generated project's Dockerfile starts node), `arena=<n>` sets
// MALLOC_ARENA_MAX, `mmap=<bytes>` and `trim=<bytes>` glibc's MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_,
// `malloc=jemalloc` preloads Debian's libjemalloc2 (LD_PRELOAD) in place of glibc's malloc,
// `v8=<flag>` passes `--<flag>`, `bundle` runs lib/anchor.protean.mjs bundled into one file as the generated
// project's build.mjs bundles it (lib/bundle.mjs); e.g. `protean-paged:semi=2`, `protean-paged:semi=2:bundle`.
for (const name of typeof flags.contenders === 'string' ? flags.contenders.split(',') : []) {
  const [baseName, ...tunings] = name.split(':');
  const base = CONTENDERS[baseName];
  if (tunings.length === 0 || base?.side !== 'protean') continue;
  const nodeArgs = [];
  let script;
  const env = { ...base.env };
  for (const t of tunings) {
    const [k, v] = t.split('=');
    if (k === 'bundle' && v === undefined) script = BUNDLED_ANCHOR;
    else if (k === 'semi' && /^\d+$/.test(v ?? '')) nodeArgs.push(`--max-semi-space-size=${v}`);
    else if (k === 'arena' && /^\d+$/.test(v ?? '')) env.MALLOC_ARENA_MAX = v;
    else if (k === 'mmap' && /^\d+$/.test(v ?? '')) env.MALLOC_MMAP_THRESHOLD_ = v;
    else if (k === 'trim' && /^\d+$/.test(v ?? '')) env.MALLOC_TRIM_THRESHOLD_ = v;
    else if (k === 'malloc' && v === 'jemalloc') {
      if (!existsSync(JEMALLOC)) throw new Error(`--contenders: ${name} needs ${JEMALLOC} (apt-get install libjemalloc2)`);
      env.LD_PRELOAD = JEMALLOC;
    } else if (k === 'v8' && /^[a-z][\w-]*(=\w+)?$/.test(v ?? '')) nodeArgs.push(`--${t.slice(3)}`);
    else
      throw new Error(
        `--contenders: ${JSON.stringify(t)} in ${JSON.stringify(name)} is not semi=<MiB>, arena=<n>, mmap=<bytes>, trim=<bytes>, v8=<flag> or bundle`,
      );
  }
  CONTENDERS[name] = { ...base, label: `${base.label}, ${tunings.join(' ')}`, nodeArgs, env, script };
}
const contenders =
  typeof flags.contenders === 'string'
    ? flags.contenders.split(',').filter((c) => c !== '')
    : ['client-go', 'client-go-paged', 'protean', 'protean-paged'];
const unknown = contenders.filter((c) => !(c in CONTENDERS));
if (unknown.length > 0) throw new Error(`--contenders: unknown ${unknown.join(', ')}; known: ${Object.keys(CONTENDERS).join(', ')}`);
if (contenders.some((c) => CONTENDERS[c].script === BUNDLED_ANCHOR)) await bundleProteanAnchor();
/** Ratio columns: each side's default against the other's, then Protean / client-go in the same list mode. */
const RATIOS = [
  ['protean-paged', 'client-go'],
  ['protean', 'client-go'],
  ['protean-paged', 'client-go-paged'],
].filter(([a, b]) => contenders.includes(a) && contenders.includes(b));

const GROUP = 'anchor.bench.protean.dev';
const NAMESPACE = 'default';
const CRD_CONCURRENCY = 32;
const CREATE_CONCURRENCY = 48;
const kindName = (i) => `Kind${String(i).padStart(4, '0')}`;
const gvrOf = (i) => ({ group: GROUP, version: 'v1', resource: `${kindName(i).toLowerCase()}s` });
const collectionPath = (gvr, ns = NAMESPACE) => `/apis/${gvr.group}/${gvr.version}/namespaces/${ns}/${gvr.resource}`;
const listPath = (gvr) => `/apis/${gvr.group}/${gvr.version}/${gvr.resource}`;
const MiB = 1024 * 1024;
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' ');

/** Creates the size's CRDs, waits until each is Established and served, then creates the objects. */
async function populate(server, client, size) {
  const gvrs = Array.from({ length: size.kinds }, (_, i) => gvrOf(i));
  await createAll(0, size.kinds, CRD_CONCURRENCY, (i) =>
    client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crdManifest(gvrs[i], kindName(i))),
  );
  const deadline = performance.now() + 600_000;
  for (;;) {
    const list = JSON.parse(await client.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'));
    const established = list.items.filter((crd) => crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'));
    if (established.length >= size.kinds) break;
    if (performance.now() > deadline) throw new Error(`only ${established.length} of ${size.kinds} CRDs Established after 600 s`);
    await sleep(500);
  }
  await prime(server.kubeConfig, gvrs);
  const total = size.kinds * size.objects;
  progress('anchor', `creating ${total.toLocaleString('en-US')} objects (${CREATE_CONCURRENCY} in flight)`);
  const t = performance.now();
  await createAll(0, total, CREATE_CONCURRENCY, (n) => {
    const k = n % size.kinds;
    const j = Math.floor(n / size.kinds);
    return client.request('POST', collectionPath(gvrs[k]), {
      apiVersion: `${GROUP}/v1`,
      kind: kindName(k),
      metadata: { name: `o-${j}`, namespace: NAMESPACE, labels: { app: 'anchor', shard: `s${j % 4}` } },
      spec: { index: j },
    });
  });
  progress('anchor', `  ${Math.round(total / ((performance.now() - t) / 1000))} objects/s`);
  return gvrs;
}

/**
 * Waits until every kind is served and its watch cache is ready: a WATCH from
 * resourceVersion 0 (served by the watch cache) with a label selector nothing
 * matches is answered 200 once the cache has loaded the kind, 429 ("storage
 * is (re)initializing") or 404 before. The response is dropped at its headers.
 */
async function prime(kubeConfig, gvrs) {
  const opts = { headers: {} };
  await kubeConfig.applyToHTTPSOptions(opts);
  const server = new URL(kubeConfig.getCurrentCluster().server);
  const agent = new https.Agent({ keepAlive: false, ca: opts.ca, cert: opts.cert, key: opts.key });
  const status = (gvr) =>
    new Promise((resolve, reject) => {
      const req = https.request(
        {
          agent,
          hostname: server.hostname,
          port: server.port,
          path: `${listPath(gvr)}?watch=1&resourceVersion=0&labelSelector=anchor-prime%3Dnone&timeoutSeconds=5`,
          headers: { ...opts.headers, accept: 'application/json' },
        },
        (res) => {
          resolve(res.statusCode);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.end();
    });
  try {
    await createAll(0, gvrs.length, CRD_CONCURRENCY, async (i) => {
      const deadline = performance.now() + 300_000;
      for (;;) {
        const code = await status(gvrs[i]);
        if (code === 200) return;
        if ((code !== 404 && code !== 429 && code !== 503) || performance.now() > deadline) {
          throw Object.assign(new Error(`WATCH ${listPath(gvrs[i])}: HTTP ${code} while waiting for its watch cache`), {
            statusCode: code,
          });
        }
        await sleep(100);
      }
    });
  } finally {
    agent.destroy();
  }
}

/** The command line of a contender's process. */
function commandOf(name, files, apiPid, goBinary) {
  const contender = CONTENDERS[name];
  const pidArgs =
    apiPid === undefined ? [] : contender.side === 'client-go' ? ['-apiserver-pid', String(apiPid)] : [`--apiserver-pid=${apiPid}`];
  if (contender.side === 'client-go') {
    return { file: goBinary, args: ['-kubeconfig', files.kubeconfig, '-resources', files.resources, ...pidArgs] };
  }
  return {
    file: process.execPath,
    args: [
      '--expose-gc',
      ...(contender.nodeArgs ?? []),
      contender.script ?? join(here, 'lib', 'anchor.protean.mjs'),
      `--kubeconfig=${files.kubeconfig}`,
      `--resources=${files.resources}`,
      `--streaming-list=${contender.streamingList}`,
      ...(contender.args ?? []),
      ...pidArgs,
    ],
  };
}

/**
 * Starts a contender's process (stdout piped, stderr inherited); `report` resolves with the JSON on the last line of
 * its stdout once it exits with 0 and rejects otherwise, naming `label`. `onOutput` sees its stdout so far after
 * each chunk.
 */
function startReporting(label, file, args, env, onOutput = () => undefined) {
  const child = spawn(file, args, { cwd: here, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    out += chunk;
    onOutput(out);
  });
  const report = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c, signal) => {
      const code = signal ?? c;
      if (code !== 0) return reject(new Error(`${label} exited with ${code}; stdout: ${out.slice(0, 500)}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)));
      } catch (err) {
        reject(new Error(`${label} printed no JSON report: ${JSON.stringify(out.slice(0, 500))}`, { cause: err }));
      }
    });
  });
  return { child, report };
}

/**
 * A Protean contender's RSS before any informer starts with its garbage collected (as the Go side reads it after
 * runtime.GC()), from a process of its own started as the run's (`--before-only`): see lib/anchor.protean.mjs for
 * why the measured run forces no collection.
 */
async function rssBeforeCollected(name, files, goBinary, env) {
  const { file, args } = commandOf(name, files, undefined, goBinary);
  const label = `${name} --before-only`;
  const bytes = (await startReporting(label, file, [...args, '--before-only'], env).report).rssBeforeCollectedBytes;
  if (typeof bytes !== 'number') throw new Error(`${label} reported no rssBeforeCollectedBytes`);
  return bytes;
}

/** One run of a contender in a fresh process against a freshly restarted kube-apiserver. */
async function runOnce(server, client, gvrs, name, files, goBinary) {
  const env = { ...process.env };
  for (const [k, v] of Object.entries(CONTENDERS[name].env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const rssBeforeBytes = CONTENDERS[name].side === 'protean' ? await rssBeforeCollected(name, files, goBinary, env) : undefined;
  await server.restart();
  const port = Number(new URL(server.url).port);
  const apiPid = findPid(['kube-apiserver', `--secure-port=${port}`]);
  await prime(server.kubeConfig, gvrs);
  const settledMs = await settle(apiPid);
  const { file, args } = commandOf(name, files, apiPid, goBinary);
  const loadBefore = loadavg();
  let connectionsSynced;
  let connectionsPeak = 0;
  const { child, report: reported } = startReporting(name, file, args, env, (out) => {
    // The report is printed once synced and settled; the connections then are the settled count.
    if (connectionsSynced === undefined && out.includes('\n')) connectionsSynced = sample();
  });
  const sample = () => {
    const c = tcpConnectionsTo(child.pid, port);
    if (c.total > connectionsPeak) connectionsPeak = c.total;
    return c.total;
  };
  const sampler = setInterval(sample, 100);
  let report;
  try {
    report = await reported;
  } finally {
    clearInterval(sampler);
  }
  const expected = gvrs.length * files.objectsPerKind;
  if (report.objects !== expected) throw new Error(`${name} cached ${report.objects} objects, expected ${expected}`);
  return {
    contender: name,
    ...report,
    ...(rssBeforeBytes === undefined ? {} : { rssBeforeBytes }),
    connectionsPeak,
    connectionsSynced,
    settledMs,
    loadAverage: { before: loadBefore, after: loadavg() },
  };
}

/** kube-apiserver counts as settled once it used less than this share of one core in each of SETTLE_SECONDS seconds in a row. */
const SETTLE_CPU_SHARE = 0.1;
const SETTLE_SECONDS = 2;
const SETTLE_MAX_MS = 180_000;

/**
 * Waits until the restarted kube-apiserver is idle: once its watch caches
 * are ready it may still be busy for a while (2-19 s in the recorded runs),
 * and a contender started into that would share the cores with it. Returns how
 * long it waited (at most SETTLE_MAX_MS; never less than SETTLE_SECONDS).
 */
async function settle(apiPid) {
  const started = performance.now();
  if (apiPid === undefined) {
    await sleep(2000);
    return performance.now() - started;
  }
  let quiet = 0;
  let last = cpuMsOf(apiPid);
  while (quiet < SETTLE_SECONDS && performance.now() - started < SETTLE_MAX_MS) {
    await sleep(1000);
    const now = cpuMsOf(apiPid);
    if (now === undefined || last === undefined) break;
    quiet = now - last < SETTLE_CPU_SHARE * 1000 ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - started;
}

/** A run's `field` in MiB; NaN (left out of the median) where that side does not report it. */
const mibOf = (field) => (r) => (r[field] ?? NaN) / MiB;

/** The figures compared, each read from a run. */
const MEASURES = [
  { key: 'rssAfter', label: 'RSS after sync + GC', unit: 'MiB', digits: 0, of: (r) => r.rssAfterBytes / MiB },
  { key: 'rssSynced', label: 'RSS once synced, no forced GC', unit: 'MiB', digits: 0, of: (r) => r.rssSyncedBytes / MiB },
  { key: 'rssIdle', label: 'RSS 10 s after sync, no forced GC', unit: 'MiB', digits: 0, of: (r) => r.rssIdleBytes / MiB },
  { key: 'rssMinute', label: 'RSS 60 s after sync, no forced GC', unit: 'MiB', digits: 0, of: (r) => r.rssMinuteBytes / MiB },
  // The same split: anonymous (what the process keeps) and file-backed (the binary's code and libraries: for Node, the
  // node executable's pages, V8's optimizing compilers among them, which any Node process that runs hot code pages in).
  { key: 'rssAnonMinute', label: '  of which anonymous', unit: 'MiB', digits: 0, of: mibOf('rssAnonBytesAtMinute') },
  { key: 'rssFileMinute', label: '  of which file-backed (binary, libraries)', unit: 'MiB', digits: 0, of: mibOf('rssFileBytesAtMinute') },
  { key: 'rssPeak', label: 'RSS peak (VmHWM, before the forced GC)', unit: 'MiB', digits: 0, of: mibOf('rssPeakBytes') },
  { key: 'rssBefore', label: 'RSS before any informer starts', unit: 'MiB', digits: 1, of: (r) => r.rssBeforeBytes / MiB },
  // Node only: the same point in the measured run itself, nobody having forced a collection (lib/anchor.protean.mjs).
  { key: 'rssBeforeUnforced', label: '  the same, no forced GC (Node)', unit: 'MiB', digits: 1, of: mibOf('rssBeforeUnforcedBytes') },
  { key: 'rssStart', label: 'RSS at process start', unit: 'MiB', digits: 0, of: (r) => r.rssStartBytes / MiB },
  { key: 'heap', label: 'heap after GC (Go HeapAlloc, Node heapUsed)', unit: 'MiB', digits: 1, of: (r) => r.heapUsedBytes / MiB },
  { key: 'cpu', label: 'client CPU during the sync', unit: 'ms', digits: 0, of: (r) => r.cpuMs },
  { key: 'cpuPer1000', label: 'client CPU per 1,000 objects', unit: 'ms', digits: 1, of: (r) => (r.cpuMs / r.objects) * 1000 },
  { key: 'sync', label: 'time to all synced', unit: 's', digits: 2, of: (r) => r.syncMs / 1000 },
  { key: 'apiCpu', label: 'API server CPU during the sync', unit: 'ms', digits: 0, of: (r) => r.apiServerCpuMs ?? NaN },
  { key: 'connPeak', label: 'TCP connections to the API server, peak', unit: '', digits: 0, of: (r) => r.connectionsPeak },
  { key: 'connSynced', label: 'TCP connections to the API server, synced', unit: '', digits: 0, of: (r) => r.connectionsSynced ?? NaN },
];

function medianOf(runs, name, measure) {
  const values = runs
    .filter((r) => r.contender === name)
    .map(measure.of)
    .filter((v) => Number.isFinite(v));
  return values.length === 0 ? undefined : median(values);
}

const fmt = (v, digits) =>
  v === undefined ? 'n/a' : v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The markdown table of one size: a column per contender, then the ratios. */
function sizeTable(runs) {
  const header = ['median', ...contenders.map((c) => CONTENDERS[c].label), ...RATIOS.map(([a, b]) => `${a} / ${b}`)];
  const lines = MEASURES.filter((m) => !m.key.startsWith('conn') || runs.some((r) => Number.isFinite(m.of(r)))).map((m) => {
    const cells = contenders.map((c) => {
      const v = medianOf(runs, c, m);
      return v === undefined ? 'n/a' : `${fmt(v, m.digits)}${m.unit === '' ? '' : ` ${m.unit}`}`;
    });
    const ratios = RATIOS.map(([a, b]) => {
      const va = medianOf(runs, a, m);
      const vb = medianOf(runs, b, m);
      return va === undefined || vb === undefined || !(vb > 0) ? 'n/a' : `${fmt(va / vb, 2)}x`;
    });
    return [m.label, ...cells, ...ratios];
  });
  const modes = contenders.map((c) => {
    const seen = [...new Set(runs.filter((r) => r.contender === c).map((r) => r.listMode))];
    return seen.join('/');
  });
  lines.push(['list mode used', ...modes, ...RATIOS.map(() => '')]);
  const render = (cells) => `| ${cells.join(' | ')} |`;
  return [
    render(header),
    `|---|${header
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
    ...lines.map(render),
  ].join('\n');
}

const rows = [];
const notes = [];
const tables = [];
const details = { sizes: SIZES, rounds: ROUNDS, contenders, runs: [] };
let server;
let client;
let scratch;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    progress('anchor', `${signal}: stopping kube-apiserver and etcd`);
    client?.close();
    void Promise.resolve(server?.stop()).finally(() => process.exit(130));
  });
}

const loadAtStart = loadavg();
try {
  const goBinary = contenders.some((c) => CONTENDERS[c].side === 'client-go')
    ? clientGoAnchorBinary((m) => progress('anchor', m))
    : undefined;
  const binDir = kubeBinDir();
  scratch = mkdtempSync(join(tmpdir(), 'protean-anchor-'));
  for (const size of SIZES) {
    const sizeLabel = `${size.kinds.toLocaleString('en-US')} x ${size.objects.toLocaleString('en-US')}`;
    const sizeLoadStart = loadavg();
    progress('anchor', `size ${sizeLabel}: starting etcd + kube-apiserver from ${binDir}; creating ${size.kinds} CRDs`);
    server = await startKubeApiServer({ binDir });
    client = await keepAliveClient(server.kubeConfig);
    const gvrs = await populate(server, client, size);
    const files = {
      kubeconfig: join(scratch, 'kubeconfig'),
      resources: join(scratch, 'resources'),
      objectsPerKind: size.objects,
    };
    writeFileSync(files.kubeconfig, server.kubeConfig.exportConfig(), { mode: 0o600 });
    writeFileSync(files.resources, `${gvrs.map((g) => `${g.group}/${g.version}/${g.resource}`).join('\n')}\n`);

    const runs = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round so no contender always runs first after the set-up.
      const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]);
      for (const name of order) {
        progress('anchor', `${sizeLabel}, round ${round + 1}/${ROUNDS}: ${name} (load average ${fmtLoad(loadavg())})`);
        const run = await runOnce(server, client, gvrs, name, files, goBinary);
        runs.push(run);
        details.runs.push({ size: sizeLabel, round: round + 1, ...run });
        progress(
          'anchor',
          `  synced in ${(run.syncMs / 1000).toFixed(2)} s (${run.listMode}), RSS ${(run.rssBeforeBytes / MiB).toFixed(0)} → ` +
            `${(run.rssSyncedBytes / MiB).toFixed(0)} synced, ${(run.rssIdleBytes / MiB).toFixed(0)} idle 10 s, ` +
            `${(run.rssMinuteBytes / MiB).toFixed(0)} idle 60 s, ` +
            (run.gcDuringSync === undefined
              ? ''
              : `GC in sync ${JSON.stringify(run.gcDuringSync)}, after ${JSON.stringify(run.gcAfterSync)}, `) +
            `${(run.rssAfterBytes / MiB).toFixed(0)} MiB after GC, heap ${(run.heapUsedBytes / MiB).toFixed(1)} MiB, CPU ${run.cpuMs.toFixed(0)} ms, ` +
            `API server CPU ${run.apiServerCpuMs ?? 'n/a'} ms, requests ${JSON.stringify(run.requests ?? {})}, connections peak ${run.connectionsPeak} ` +
            `(API server idle ${(run.settledMs / 1000).toFixed(0)} s after its caches were ready)`,
        );
        if (run.v8KiBAtMinute !== undefined) {
          const kib = (n) => `${(n / 1024).toFixed(1)}`;
          const spaces = Object.entries(run.heapSpacesKiBAtMinute ?? {})
            .filter(([, v]) => v >= 512)
            .map(([k, v]) => `${k.replace(/_space$/, '')} ${kib(v)}`)
            .join(', ');
          progress(
            'anchor',
            `  at 60 s, anonymous ${(run.rssAnonBytesAtMinute / MiB).toFixed(0)} MiB: V8 heap ${kib(run.v8KiBAtMinute.heapPhysical)} ` +
              `(${spaces}), V8 malloc ${kib(run.v8KiBAtMinute.malloced)}, Buffers and ArrayBuffers ${kib(run.v8KiBAtMinute.external)} MiB`,
          );
        }
      }
    }
    client.close();
    client = undefined;
    await server.stop();
    server = undefined;

    const sizeLoadEnd = loadavg();
    const table = sizeTable(runs);
    const runLoads = runs.flatMap((r) => [r.loadAverage.before[0], r.loadAverage.after[0]]);
    const heading =
      `${sizeLabel} (${(size.kinds * size.objects).toLocaleString('en-US')} objects), median of ${ROUNDS} round(s); ` +
      `load average ${fmtLoad(sizeLoadStart)} before the set-up, ${fmtLoad(sizeLoadEnd)} at the end, ` +
      `1-minute load ${Math.min(...runLoads).toFixed(1)}-${Math.max(...runLoads).toFixed(1)} during the runs`;
    tables.push(`${heading}\n\n${table}`);
    progress('anchor', `\n${heading}\n\n${table}\n`);
    // The summary table keeps the ratios; the medians of every contender are in the size's table.
    for (const m of MEASURES.filter((x) => !x.key.startsWith('conn'))) {
      for (const [a, b] of RATIOS) {
        const va = medianOf(runs, a, m);
        const vb = medianOf(runs, b, m);
        rows.push({
          measure: `${m.label}: ${a} / ${b}`,
          size: sizeLabel,
          work: size.kinds * size.objects,
          value: va === undefined || vb === undefined || !(vb > 0) ? undefined : va / vb,
          unit: 'x',
          digits: 2,
          cost: 'none',
        });
      }
    }
  }
} finally {
  client?.close();
  await server?.stop();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
}

notes.push(
  `metadata informers, one per CRD, all namespaces, started at once in a fresh process per run; kube-apiserver restarted before every run; ` +
    `${ROUNDS} round(s), contenders interleaved (order rotated per round); load average ${fmtLoad(loadAtStart)} at start, ${fmtLoad(loadavg())} at end`,
);
notes.push('per-size tables with the ratios: see the tables printed above the summary (and `tables` in results/latest.json)');
emitResult(flags, { name: 'anchor', title: 'Protean vs client-go metadata informers', rows, notes, tables, details });
if (typeof flags.out !== 'string') console.log(`\n${tables.join('\n\n')}`);
