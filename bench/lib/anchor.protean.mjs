// The Protean side of the anchor benchmark (anchor.mjs), the counterpart of
// the Go program in bench/client-go-anchor: one InformerWatchManager over a
// KubernetesInformerSource (metadata-only informers, one shared connection
// pool: the source's default), one ensureWatch per resource in the resources
// file, all at once; once every one has resolved (its informer synced), one
// JSON line on stdout with the same fields as the Go program's.
//
//   node --expose-gc lib/anchor.protean.mjs --kubeconfig=FILE --resources=FILE
//        [--apiserver-pid=PID] [--streaming-list=auto|never]
//        [--stream-window=BYTES --connection-window=BYTES] [--list-concurrency=N]
//        [--page-size=N] [--before-only]
//
// With ANCHOR_SMAPS_OUT=<file> the process's /proc/self/smaps at 60 s is
// written there (where the anonymous memory is, mapping by mapping).
//
// rssStartBytes is read before anything is imported; rssBeforeBytes once the
// packages are loaded and the source and watch manager are built, before any
// informer starts (and before the harness loads perf_hooks to count V8's
// collections: a controller need not), with nobody forcing a collection. With
// --before-only the process stops there: it forces the collections the Go
// side's runtime.GC() stands for, reads the RSS and reports only that (the
// fixed cost, rssBeforeCollectedBytes). Not in the measured run: a full
// collection forced before the sync changes what V8 does after it (its memory
// reducer is started by the old generation's first growth only while no full
// collection has run), so that run would not be the process a user runs.
// The library is used only through its public API: constructing the source
// and the manager, ensureWatch and health(). With
// --stream-window/--connection-window the source gets a connection pool of its
// own with those HTTP/2 flow-control windows (else the shared pool's defaults).
const rssStart = process.memoryUsage.rss();

const { readFileSync } = await import('node:fs');
const { parseArgs } = await import('./args.mjs');
const { cpuMsOf } = await import('./procfs.mjs');
const { createLogger } = await import('@protean/core');
const { pino } = await import('pino');
const { ProteanKubeConfig } = await import('@protean/transport');
const { InformerWatchManager, KubernetesInformerSource } = await import('@protean/watch-manager');
const { KubeConnectionPool, sharedConnectionPool } = await import('@protean/transport');

const flags = parseArgs(process.argv.slice(2), [
  'kubeconfig',
  'resources',
  'apiserver-pid',
  'streaming-list',
  'stream-window',
  'connection-window',
  'list-concurrency',
  'page-size',
  'before-only',
]);
if (typeof flags.kubeconfig !== 'string' || typeof flags.resources !== 'string') {
  throw new Error('anchor.protean.mjs: --kubeconfig=FILE and --resources=FILE are required');
}
if (typeof globalThis.gc !== 'function') throw new Error('anchor.protean.mjs needs node --expose-gc');
const apiServerPid = flags['apiserver-pid'] === undefined ? undefined : Number(flags['apiserver-pid']);
const streamingList = flags['streaming-list'] ?? 'auto';

const gvrs = readFileSync(flags.resources, 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '')
  .map((line) => {
    const [group, version, resource, ...rest] = line.split('/');
    if (rest.length > 0 || !version || !resource)
      throw new Error(`${flags.resources}: ${JSON.stringify(line)} is not group/version/resource`);
    return { group, version, resource };
  });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
/**
 * A full collection that also hands V8's free and pooled pages back to the OS (the `last-resort` flavour:
 * memory-reducing full GCs), the counterpart of the Go side's `debug.FreeOSMemory()`. A plain `gc()` keeps
 * the pages the young generation grew to during the sync in V8's page pool, resident.
 */
async function collect() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    await new Promise((resolve) => setImmediate(resolve));
  }
}
/** As the Go side's idleWait and minuteWait: RSS is read once synced and these long after, nobody forcing a collection. */
const IDLE_WAIT_MS = 10_000;
const MINUTE_WAIT_MS = 60_000;

// Protean's own KubeConfig reader: @kubernetes/client-node (about 80 MiB of RSS) is never loaded.
const kubeConfig = new ProteanKubeConfig();
kubeConfig.loadFromFile(flags.kubeconfig);
// To stderr as a generated project logs to stdout: through a file descriptor (process.stderr would load node's streams).
const logger = createLogger({ level: 'warn' }, pino.destination(2));
const windows = {};
if (flags['stream-window'] !== undefined) windows.streamWindowBytes = Number(flags['stream-window']);
if (flags['connection-window'] !== undefined) windows.connectionWindowBytes = Number(flags['connection-window']);
const connectionPool = Object.keys(windows).length === 0 ? undefined : new KubeConnectionPool(kubeConfig, windows);
const listConcurrency = flags['list-concurrency'] === undefined ? undefined : Number(flags['list-concurrency']);
const pageSize = flags['page-size'] === undefined ? undefined : Number(flags['page-size']);
const source = new KubernetesInformerSource({ kubeConfig, logger, streamingList, connectionPool, listConcurrency, pageSize });
let objects = 0;
const onEvent = (event) => {
  if (event.type === 'add') objects++;
  else if (event.type === 'delete') objects--;
};
const watches = new InformerWatchManager(source, 0, onEvent, logger, { syncTimeoutMs: 900_000 });

if (flags['before-only'] === true) {
  await collect();
  // Read before process.stdout, whose getter loads node's streams.
  const rssBeforeCollected = process.memoryUsage.rss();
  process.stdout.write(`${JSON.stringify({ side: 'protean', rssStartBytes: rssStart, rssBeforeCollectedBytes: rssBeforeCollected })}\n`);
  process.exit(0);
}
// Read before the harness loads perf_hooks for its own observer below.
const rssBefore = process.memoryUsage.rss();
// V8's collections during the sync and after it (their pauses on the main thread, by kind), none of them forced.
const { PerformanceObserver, constants: perfConstants } = await import('node:perf_hooks');
const gcKinds = { [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor' };
let gcs = {};
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = gcKinds[entry.detail?.kind] ?? 'other';
    const seen = (gcs[kind] ??= { count: 0, ms: 0 });
    seen.count++;
    seen.ms += entry.duration;
  }
});
gcObserver.observe({ entryTypes: ['gc'] });
const apiCpu0 = apiServerPid === undefined ? undefined : cpuMsOf(apiServerPid);
const cpu0 = process.cpuUsage();
const started = performance.now();
await Promise.all(gvrs.map((gvr) => watches.ensureWatch(gvr, 'anchor')));
const syncMs = performance.now() - started;
const usedCpuMs = cpuMs(cpu0);
const apiServerCpuMs = apiCpu0 === undefined ? null : cpuMsOf(apiServerPid) - apiCpu0;
await new Promise((resolve) => setImmediate(resolve));
const gcDuringSync = gcs;
gcs = {};

const listModes = {};
for (const health of watches.health()) {
  const mode = health.informer?.listMode ?? 'unknown';
  listModes[mode] = (listModes[mode] ?? 0) + 1;
}
// What an operator would see with nobody forcing a collection.
const rssSynced = process.memoryUsage.rss();
await sleep(IDLE_WAIT_MS);
const rssIdle = process.memoryUsage.rss();
// The requests the informers sent by now, by verb (those answered: the pool's access log), as the Go side counts its
// own: a list per informer and a watch each, unless some relisted. Read here, once every watch has its answer.
const requests = {};
const pool = connectionPool ?? sharedConnectionPool(kubeConfig);
for (const record of pool.accessLog.entries()) requests[record.access.verb] = (requests[record.access.verb] ?? 0) + record.requests;
await sleep(MINUTE_WAIT_MS - IDLE_WAIT_MS);
const rssMinute = process.memoryUsage.rss();
gcObserver.disconnect();
const gcAfterSync = gcs;
const status = readFileSync('/proc/self/status', 'utf8');
const statusKiB = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
// How much of the anonymous resident memory is V8's heap (committed and touched, all spaces), V8's own malloc,
// and the memory of Buffers and ArrayBuffers (external): the rest is malloc outside V8, stacks and V8's pooled pages.
const v8Heap = (await import('node:v8')).getHeapStatistics();
if (process.env.ANCHOR_SMAPS_OUT)
  (await import('node:fs')).writeFileSync(process.env.ANCHOR_SMAPS_OUT, readFileSync('/proc/self/smaps', 'utf8'));
const v8KiBAtMinute = {
  heapPhysical: Math.round(v8Heap.total_physical_size / 1024),
  malloced: Math.round(v8Heap.malloced_memory / 1024),
  external: Math.round(v8Heap.external_memory / 1024),
};
// Where the resident memory is, before the forced collection: V8's spaces (committed) and what is outside V8.
const spaces = Object.fromEntries(
  (await import('node:v8')).getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.physical_space_size / 1024)]),
);
// Settle as the Go side does: collect, wait a second, collect again.
await collect();
await sleep(1000);
await collect();
const memory = process.memoryUsage();

const modes = Object.keys(listModes);
process.stdout.write(
  `${JSON.stringify({
    side: 'protean',
    informers: gvrs.length,
    objects,
    syncMs,
    rssStartBytes: rssStart,
    rssBeforeUnforcedBytes: rssBefore,
    rssSyncedBytes: rssSynced,
    rssIdleBytes: rssIdle,
    rssMinuteBytes: rssMinute,
    heapSpacesKiBAtMinute: spaces,
    gcDuringSync,
    gcAfterSync,
    // Of the RSS at 60 s: pages of files (the node binary's code and data) and anonymous memory.
    rssFileBytesAtMinute: statusKiB('RssFile') * 1024,
    rssAnonBytesAtMinute: statusKiB('RssAnon') * 1024,
    v8KiBAtMinute,
    // The highest RSS of the process so far (the sync's peak, unless the forced collections below are), for a limit.
    rssPeakBytes: statusKiB('VmHWM') * 1024,
    nodeFlags: process.execArgv.filter((a) => a !== '--expose-gc'),
    rssAfterBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    heapTotalBytes: memory.heapTotal,
    externalBytes: memory.external,
    arrayBuffersBytes: memory.arrayBuffers,
    cpuMs: usedCpuMs,
    apiServerCpuMs,
    listMode: modes.length === 1 ? modes[0] : 'mixed',
    listModes,
    streamingList,
    requests,
  })}\n`,
);
// Stay connected a moment, so the benchmark counts the connections of a synced process.
await sleep(500);
watches.shutdown();
process.exit(0);
