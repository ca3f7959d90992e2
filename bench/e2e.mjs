// End-to-end latency and registration time of a DynamicController on a real
// kube-apiserver + etcd (startKubeApiServer from @protean/envtest).
//
// The controller is composed as an application composes it: one Inversify
// container with coreModule, queueModule, watchManagerModule (metadata-only
// informers over the server's KubeConfig) and coordinatorModule. Config:
// 4 workers, rateLimit and burst 10,000 (only retries are rate limited; the
// adds measured here never are, but the seed's 10/s must not throttle
// anything), no resync. The controller and the client that writes run in this
// one Node process; a fresh controller is built for every measurement.
//
// Two stages; the second adds objects to the first's:
//   small: 1,000 ConfigMaps, 100 latency instances, 1,000 register instances
//   large: 5,000 ConfigMaps, 500 latency instances, 5,000 register instances
//   (quick: 200/20/200 and 1,000/100/1,000, and 300 updates)
// Objects: ConfigMaps cm-<i> in `default`; two CRDs created at runtime,
// latencyparents and registerparents (bench.protean.dev/v1). Latency instance
// j watches cm-<10j>..cm-<10j+9> by name (10 scalar watches); register
// instance i watches cm-<i>. Creation uses client-node with 24 requests in
// flight and is timed separately (setup rows).
//
// Latency: register the latency parent, wait until every instance has been
// reconciled and nothing has run for 500 ms, send 200 untimed warm-up
// updates and wait for quiet again; then send 2,000 ConfigMap updates (PUT)
// at 100/s. The updates go over one keep-alive HTTPS agent, so the response
// timestamp is not delayed by a TLS handshake per request. Update k goes to
// instance k mod N (a different ConfigMap of it each round), so updates in
// flight always target distinct instances (an instance is updated again only
// N x 10 ms later). The handler records performance.now() per instance on
// entry. Each update is matched to the first handler call of its instance
// after the request was *sent* (the watch event can be handled before this
// process reads the PUT response), and its latency is that call's time minus
// the response time, so a handler that ran before the response was read
// counts as <= 0. Reported: p50, p95 and p99 over the 2,000 updates of one run
// per size (the 2,000 samples are the repetitions), plus p50 and p99 from the
// moment the request was sent; unmatched updates (none expected) are counted
// in the notes.
//
// Register time: with N register instances already in the cluster, a fresh
// controller is started, then register(registerparents) is timed until every
// instance's handler has completed once (each declares its watch and waits
// for the ConfigMap informer to sync, as a real reconcile would); also when
// register() itself resolved (the parent informer synced). Per size: one
// untimed warm-up run, then 3 runs (quick: 1), each on a fresh controller;
// the median is reported.
// Wall-clock time throughout: this measures the system (API server, etcd,
// informers, queue), on a machine whose 2 cores are shared.
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer } from '@protean/envtest';
import { parseArgs } from './lib/args.mjs';
import { defineParentKind, keepAliveClient, kubeBinDir } from './lib/cluster.mjs';
import {
  CONFIGMAPS,
  CREATE_CONCURRENCY,
  cmName,
  configMap,
  LATENCY_PARENT,
  NAMESPACE,
  populate,
  REGISTER_PARENT,
  startComposedController,
  WATCHES_PER_INSTANCE,
} from './lib/e2eWorkload.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { median, percentile, sleep } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const quick = flags.quick === true;
const STAGES = quick
  ? [
      { configMaps: 200, latencyInstances: 20, registerInstances: 200 },
      { configMaps: 1_000, latencyInstances: 100, registerInstances: 1_000 },
    ]
  : [
      { configMaps: 1_000, latencyInstances: 100, registerInstances: 1_000 },
      { configMaps: 5_000, latencyInstances: 500, registerInstances: 5_000 },
    ];
const UPDATES = quick ? 300 : 2_000;
const WARMUP_UPDATES = quick ? 50 : 200;
const UPDATES_PER_SECOND = 100;
const REGISTER_RUNS = quick ? 1 : 3;
const QUIET_MS = 500;
const CONFIG = { workers: 4, rateLimit: 10_000, burstLimit: 10_000, resyncPeriodMs: 0, queueShutdownTimeoutMs: 30_000 };
const startController = (kubeConfig) => startComposedController(kubeConfig, CONFIG);

/**
 * Sends `count` ConfigMap updates at UPDATES_PER_SECOND, update k to latency
 * instance k mod `instances` (one of its 10 ConfigMaps, changing each round);
 * resolves once every response has been read.
 */
async function sendUpdates(client, instances, first, count) {
  const updates = [];
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const due = started + (n * 1000) / UPDATES_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const k = first + n;
    const j = k % instances;
    const cm = j * WATCHES_PER_INSTANCE + (Math.floor(k / instances) % WATCHES_PER_INSTANCE);
    const u = { instance: j, sentAt: performance.now(), respondedAt: undefined };
    u.done = client.request('PUT', `/api/v1/namespaces/${NAMESPACE}/configmaps/${cmName(cm)}`, configMap(cm, k + 1)).then(() => {
      u.respondedAt = performance.now();
    });
    updates.push(u);
  }
  await Promise.all(updates.map((u) => u.done));
  return updates;
}

/** p50/p95/p99 of the child-update -> handler latency with `instances` latency parents. */
async function measureLatency(kc, instances) {
  const { controller, stop } = startController(kc);
  const calls = new Map(); // instance index -> handler entry times
  let running = 0;
  let lastCallAt = performance.now();
  const handler = async (req, ctx) => {
    const now = performance.now();
    lastCallAt = now;
    const j = Number(req.name.slice(2));
    let times = calls.get(j);
    if (times === undefined) calls.set(j, (times = []));
    times.push(now);
    running++;
    try {
      const watcher = controller.watchCoordinator().forInstance(ctx.gvr, req);
      for (let w = 0; w < WATCHES_PER_INSTANCE; w++) {
        await watcher.watch({ nodeId: `cm${w}`, gvr: CONFIGMAPS, namespace: req.namespace, name: cmName(j * WATCHES_PER_INSTANCE + w) });
      }
      watcher.done(true);
    } finally {
      running--;
      lastCallAt = performance.now();
    }
  };
  try {
    await controller.register(LATENCY_PARENT, handler);
    await waitFor(() => calls.size === instances, {
      message: 'every latency instance to be reconciled',
      timeoutMs: 120_000,
      intervalMs: 5,
    });
    const quiet = () => running === 0 && controller.queueLength() === 0 && performance.now() - lastCallAt > QUIET_MS;
    await waitFor(quiet, { message: 'the controller to go quiet', timeoutMs: 120_000, intervalMs: 5 });

    const client = await keepAliveClient(kc);
    let updates;
    let sendSeconds;
    try {
      // Untimed warm-up of the whole path (client, informer, queue, handler).
      await sendUpdates(client, instances, 0, WARMUP_UPDATES);
      await waitFor(quiet, { message: 'the controller to go quiet', timeoutMs: 60_000, intervalMs: 5 });
      const started = performance.now();
      updates = await sendUpdates(client, instances, WARMUP_UPDATES, UPDATES);
      sendSeconds = (updates.at(-1).sentAt - started) / 1000 || 1;
    } finally {
      client.close();
    }
    const firstCallAfter = (u) => calls.get(u.instance).find((t) => t > u.sentAt);
    await waitFor(() => updates.every((u) => firstCallAfter(u) !== undefined), {
      message: 'handler calls for the updates',
      timeoutMs: 10_000,
      intervalMs: 5,
    }).catch(() => undefined);

    const latencies = [];
    const fromSent = [];
    let unmatched = 0;
    for (const u of updates) {
      const call = firstCallAfter(u);
      if (call === undefined) unmatched++;
      else {
        latencies.push(call - u.respondedAt);
        fromSent.push(call - u.sentAt);
      }
    }
    return {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      beforeResponse: latencies.filter((l) => l <= 0).length,
      unmatched,
      rate: (UPDATES - 1) / sendSeconds,
      putMedianMs: median(updates.map((u) => u.respondedAt - u.sentAt)),
      putP99Ms: percentile(
        updates.map((u) => u.respondedAt - u.sentAt),
        99,
      ),
      sentP50: percentile(fromSent, 50),
      sentP99: percentile(fromSent, 99),
    };
  } finally {
    await stop();
  }
}

/** ms from register() until every one of `instances` register parents was reconciled once. */
async function measureRegister(kc, instances) {
  const { controller, stop } = startController(kc);
  const reconciled = new Set();
  let allDoneAt;
  const handler = async (req, ctx) => {
    const watcher = controller.watchCoordinator().forInstance(ctx.gvr, req);
    await watcher.watch({ nodeId: 'config', gvr: CONFIGMAPS, namespace: req.namespace, name: cmName(Number(req.name.slice(2))) });
    watcher.done(true);
    reconciled.add(req.name);
    if (reconciled.size === instances && allDoneAt === undefined) allDoneAt = performance.now();
  };
  try {
    const started = performance.now();
    await controller.register(REGISTER_PARENT, handler);
    const registeredAt = performance.now();
    await waitFor(() => allDoneAt !== undefined, {
      message: 'every register instance to be reconciled',
      timeoutMs: 300_000,
      intervalMs: 5,
    });
    return { totalMs: allDoneAt - started, registerMs: registeredAt - started };
  } finally {
    await stop();
  }
}

const rows = [];
const notes = [];
const details = { config: CONFIG, stages: [] };
let server;
const stopServer = () => server?.stop();
function onSignal(signal) {
  progress('e2e', `${signal}: stopping kube-apiserver and etcd`);
  void Promise.resolve(stopServer()).finally(() => process.exit(130));
}
let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // A terminal's Ctrl-C reaches this process and run.mjs, which forwards it: act once.
    if (!signalled) onSignal(signal);
    signalled = true;
  });
}

try {
  const binDir = kubeBinDir();
  progress('e2e', `starting etcd + kube-apiserver from ${binDir}`);
  const startedAt = performance.now();
  server = await startKubeApiServer({ binDir });
  const startMs = performance.now() - startedAt;
  rows.push({
    measure: 'setup: start etcd + kube-apiserver',
    size: '-',
    work: 1,
    value: startMs / 1000,
    unit: 's',
    cost: 'none',
    digits: 1,
  });
  const kc = server.kubeConfig;
  const crdStarted = performance.now();
  await defineParentKind(kc, LATENCY_PARENT, 'LatencyParent');
  await defineParentKind(kc, REGISTER_PARENT, 'RegisterParent');
  rows.push({
    measure: 'setup: define 2 CRDs until served',
    size: '-',
    work: 1,
    value: (performance.now() - crdStarted) / 1000,
    unit: 's',
    cost: 'none',
    digits: 1,
  });

  let have = { configMaps: 0, latencyInstances: 0, registerInstances: 0 };
  const setupRows = [];
  const latencyRows = { p50: [], p95: [], p99: [], sentP50: [], sentP99: [] };
  const registerRows = [];
  const syncRows = [];
  for (const stage of STAGES) {
    const label = `${stage.configMaps.toLocaleString('en-US')} CMs / ${stage.latencyInstances} inst.`;
    progress('e2e', `creating objects up to ${JSON.stringify(stage)}`);
    const created = await populate(kc, have, stage);
    have = stage;
    setupRows.push({
      measure: `setup: create CMs + CRs (${CREATE_CONCURRENCY} in flight)`,
      size: `+${created.objects.toLocaleString('en-US')} objects`,
      work: created.objects,
      value: (created.objects / created.ms) * 1000,
      unit: 'objects/s',
      cost: 'inverse',
    });

    progress('e2e', `latency: ${UPDATES} updates at ${UPDATES_PER_SECOND}/s, ${label}`);
    const lat = await measureLatency(kc, stage.latencyInstances);
    for (const p of ['p50', 'p95', 'p99']) {
      latencyRows[p].push({
        measure: `update response → handler, ${p}`,
        size: label,
        work: stage.configMaps,
        value: lat[p],
        unit: 'ms',
        cost: 'direct',
        digits: 1,
      });
    }
    for (const [key, p] of [
      ['sentP50', 'p50'],
      ['sentP99', 'p99'],
    ]) {
      latencyRows[key].push({
        measure: `update sent → handler, ${p}`,
        size: label,
        work: stage.configMaps,
        value: lat[key],
        unit: 'ms',
        cost: 'direct',
        digits: 1,
      });
    }
    notes.push(
      `${label}: ${UPDATES} updates sent at ${lat.rate.toFixed(1)}/s; PUT round trip p50 ${lat.putMedianMs.toFixed(1)} ms, p99 ${lat.putP99Ms.toFixed(1)} ms; ` +
        `${lat.beforeResponse} of ${UPDATES} handler calls came before the PUT response was read (latency <= 0); ${lat.unmatched} unmatched`,
    );

    progress('e2e', `register: ${stage.registerInstances} instances, warm-up + ${REGISTER_RUNS} runs`);
    await measureRegister(kc, stage.registerInstances);
    const regRuns = [];
    for (let run = 0; run < REGISTER_RUNS; run++) regRuns.push(await measureRegister(kc, stage.registerInstances));
    const reg = { totalMs: median(regRuns.map((r) => r.totalMs)), registerMs: median(regRuns.map((r) => r.registerMs)), runs: regRuns };
    const regLabel = `${stage.registerInstances.toLocaleString('en-US')} instances`;
    registerRows.push({
      measure: 'register → every instance reconciled once',
      size: regLabel,
      work: stage.registerInstances,
      value: reg.totalMs,
      unit: 'ms',
      cost: 'direct',
      digits: 0,
    });
    syncRows.push({
      measure: 'register() resolved (parent informer synced)',
      size: regLabel,
      work: stage.registerInstances,
      value: reg.registerMs,
      unit: 'ms',
      cost: 'direct',
      digits: 0,
    });
    details.stages.push({ stage, created, latency: lat, register: reg });
  }
  rows.push(...setupRows, ...Object.values(latencyRows).flat(), ...registerRows, ...syncRows);
} finally {
  progress('e2e', 'stopping kube-apiserver and etcd');
  await stopServer();
}

emitResult(flags, {
  name: 'e2e',
  title: 'End to end on a real kube-apiserver',
  rows,
  notes: [
    `controller config: workers ${CONFIG.workers}, rateLimit ${CONFIG.rateLimit}/s, burst ${CONFIG.burstLimit}, resync off; ${WATCHES_PER_INSTANCE} scalar ConfigMap watches per latency instance, 1 per register instance`,
    `wall-clock; latency: ${UPDATES.toLocaleString('en-US')} updates at ${UPDATES_PER_SECOND}/s per size after ${WARMUP_UPDATES} warm-up updates; register: median of ${REGISTER_RUNS} run(s) on fresh controllers after a warm-up run`,
    ...notes,
  ],
  details,
});
