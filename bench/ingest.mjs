// Informer ingest: watch events per CPU-second that one informer parses,
// stores and dispatches to a counting handler, Protean's informer (KubernetesListWatch under the informer engine)
// side by side with @kubernetes/client-node's makeInformer, on the same
// local stream; plus JSON.parse of the same lines alone (what an informer that
// parses every byte cannot beat).
//
// The stream: a separate process (lib/watchStream.server.mjs, so its CPU is
// not counted here) answers the LIST with an empty list and every WATCH with
// the same pre-serialised newline-delimited events in 64 KiB writes: 10,000
// objects added, then modified in turn (so most events are updates of cached
// objects). Two event shapes (lib/watchEvents.mjs): 'server', what
// kube-apiserver sends for a metadata-only watch of a ConfigMap (3 labels, 2
// annotations, one managedFields entry; about 810 bytes), at 50,000 and
// 200,000 events (quick: 20,000 and 50,000); and 'bare', the same without
// managedFields (about 430 bytes), at the largest size. Protean's informer
// runs with `streamingList: 'never'` (the stream is a plain watch),
// metadata-only as always; client-node's caches what it receives, here the
// same metadata.
//
// Method: per workload and informer, one untimed warm-up run, then 5 timed
// runs (quick: 3), each on a fresh informer: CPU time (process.cpuUsage, user
// + system, GC threads included) from starting the informer to the handler
// call of the last event; a forced GC before each run. The three contenders
// take turns run by run, so a change of machine load hits them alike.
// Reported: the median rate of each. JSON.parse: the same lines, one pass per
// run.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeConfig, makeInformer } from '@kubernetes/client-node';
import { KubernetesInformerSource, runInformer } from '@protean/watch-manager';
import { parseArgs } from './lib/args.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { cpuMsSince, median, tick } from './lib/stats.mjs';
import { watchEventLines } from './lib/watchEvents.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const quick = flags.quick === true;
const SIZES = quick ? [20_000, 50_000] : [50_000, 200_000];
const LARGEST = SIZES.at(-1);
const WORKLOADS = [...SIZES.map((events) => ({ shape: 'server', events })), { shape: 'bare', events: LARGEST }];
const SHAPE_LABEL = { server: 'server-shaped', bare: 'no managedFields' };
const OBJECTS = 10_000;
const RUNS = quick ? 3 : 5;
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

/** Starts the stream server for `events` events of `shape`; resolves with its port and event size. */
async function startServer(events, shape) {
  const script = fileURLToPath(new URL('./lib/watchStream.server.mjs', import.meta.url));
  const args = [script, `--events=${events}`, `--objects=${OBJECTS}`, `--shape=${shape}`];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const info = {};
  await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the stream server exited with code ${code}`)));
    lines.on('line', (line) => {
      const [key, value] = line.split(' ');
      info[key] = Number(value);
      if (info.port !== undefined && info.bytes !== undefined) resolve();
    });
  });
  child.removeAllListeners('exit');
  return { port: info.port, bytesPerEvent: info.bytes, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) };
}

function kubeConfigFor(port) {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'stream', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'bench', token: 'bench' }],
    contexts: [{ name: 'stream', cluster: 'stream', user: 'bench' }],
    currentContext: 'stream',
  });
  return kc;
}

/** A run ends at the handler call of the `events`-th event; resolves with the CPU ms it took. */
function counter(events, started) {
  let seen = 0;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const onEvent = () => {
    if (++seen === events) done(cpuMsSince(started));
  };
  return { onEvent, finished };
}

/** Protean's informer over the stream; resolves with CPU ms. */
async function runProtean(kc, events) {
  globalThis.gc?.();
  await tick();
  const started = process.cpuUsage();
  const { onEvent, finished } = counter(events, started);
  const source = new KubernetesInformerSource({ kubeConfig: kc, streamingList: 'never' });
  const abort = new AbortController();
  const informer = runInformer(source.createListWatch(CONFIGMAPS), { onAdd: onEvent, onUpdate: onEvent, onDelete: onEvent }, abort.signal);
  const ms = await finished;
  abort.abort();
  if (informer.list().length !== Math.min(OBJECTS, events)) throw new Error(`Protean's informer cached ${informer.list().length} objects`);
  return ms;
}

/** client-node's makeInformer over the stream; resolves with CPU ms. */
async function runClientNode(kc, events) {
  globalThis.gc?.();
  await tick();
  const started = process.cpuUsage();
  const { onEvent, finished } = counter(events, started);
  const list = () => Promise.resolve({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '1' }, items: [] });
  const informer = makeInformer(kc, '/api/v1/configmaps', list);
  informer.on('add', onEvent);
  informer.on('update', onEvent);
  let stopping = false;
  informer.on('error', (err) => {
    // stop() aborts the watch, which client-node reports as an error.
    if (!stopping) console.error('client-node informer error:', err);
  });
  await informer.start();
  const ms = await finished;
  stopping = true;
  await informer.stop();
  if (informer.list().length !== Math.min(OBJECTS, events))
    throw new Error(`client-node's informer cached ${informer.list().length} objects`);
  return ms;
}

/** JSON.parse of every line, nothing else; resolves with CPU ms. */
async function runParse(lines) {
  globalThis.gc?.();
  await tick();
  const started = process.cpuUsage();
  let kept = 0;
  for (const line of lines) if (JSON.parse(line).object !== undefined) kept++;
  const ms = cpuMsSince(started);
  if (kept !== lines.length) throw new Error('JSON.parse baseline lost lines');
  return ms;
}

const contenders = [
  { name: 'Protean informer', run: (ctx) => runProtean(ctx.kc, ctx.events) },
  { name: 'client-node makeInformer', run: (ctx) => runClientNode(ctx.kc, ctx.events) },
  { name: 'JSON.parse alone', run: (ctx) => runParse(ctx.lines) },
];
const measureOf = (contender, shape, bytes) => `events/CPU-s, ${contender.name} (${SHAPE_LABEL[shape]}, ${bytes} B)`;

const rows = [];
const details = [];
const ratios = [];
for (const { shape, events } of WORKLOADS) {
  const server = await startServer(events, shape);
  const ctx = { kc: kubeConfigFor(server.port), events, lines: watchEventLines(events, OBJECTS, shape) };
  try {
    progress('ingest', `${SHAPE_LABEL[shape]} events: ${events.toLocaleString('en-US')}, warm-up`);
    for (const c of contenders) await c.run(ctx);
    const rates = contenders.map(() => []);
    for (let i = 0; i < RUNS; i++) {
      progress('ingest', `${SHAPE_LABEL[shape]} events: ${events.toLocaleString('en-US')}, run ${i + 1} of ${RUNS}`);
      for (const [k, c] of contenders.entries()) rates[k].push((events / (await c.run(ctx))) * 1000);
    }
    const medians = rates.map(median);
    for (const [k, c] of contenders.entries()) {
      const measure = measureOf(c, shape, server.bytesPerEvent);
      rows.push({
        measure,
        size: `${events.toLocaleString('en-US')} events`,
        work: events,
        value: medians[k],
        unit: 'events/s',
        cost: 'inverse',
      });
      details.push({ measure, shape, events, bytesPerEvent: server.bytesPerEvent, rates: rates[k] });
    }
    // The ratio of each run's pair (same moment, same load), then the median of those.
    const perRun = (a, b) => median(rates[a].map((r, i) => r / rates[b][i]));
    if (events === LARGEST) {
      ratios.push(
        `${SHAPE_LABEL[shape]} (${server.bytesPerEvent} B) at ${events.toLocaleString('en-US')} events: Protean / client-node = ${perRun(0, 1).toFixed(2)}; Protean / JSON.parse alone = ${perRun(0, 2).toFixed(2)} (medians of the per-run ratios)`,
      );
    }
  } finally {
    await server.stop();
  }
}

emitResult(flags, {
  name: 'ingest',
  title: 'Informer ingest: watch events per CPU-second',
  rows,
  notes: [
    `one local stream of metadata-only events over ${OBJECTS.toLocaleString('en-US')} objects (added, then modified in turn), served by a separate process; CPU time from informer start to the last event's handler call, median of ${RUNS} runs after a warm-up run, fresh informer per run, contenders interleaved run by run`,
    ...ratios,
  ],
  details,
});
