// Reconcile throughput of a namespace-sharded controller at 1, 2 and 3
// replicas on a real kube-apiserver + etcd with the ShardedListAndWatch gate
// on (startKubeApiServer from @protean/envtest), and the objects each replica
// caches. See README.md, "replicas", for what the figures mean.
//
// Objects: a namespaced CRD shardedparents.bench.protean.dev; 30 namespaces
// bench-00..bench-29 (labelled; the replicas balance their split over them)
// with 40 parents each (1,200; quick: 10 x 20 = 200) and one ConfigMap
// `trigger` per namespace. Every parent's handler watches its namespace's
// trigger by name, reads the round number from the trigger's annotation and
// burns a fixed number of SHA-256 rounds (800, about 2 ms of CPU here when the
// machine is quiet; the row "handler CPU per pass" times it in this process).
//
// Per replica count N: N child processes (lib/replica.child.mjs), each a
// DynamicController (4 workers, no resync, retry rate limit 10,000/s) with
// ShardMembership (default timings), Kubernetes informers sending the
// shardSelector of the replica's ranges, and a ShardGate; the first share is
// applied once all N are live, so the informers are built for it. Once every
// replica reports the split assignShards(N members, namespaces) gives, with
// its two informers running, and every parent has been reconciled once:
// 1 untimed warm-up round and 5 measured rounds (quick: 1 + 2). A round PUTs
// the 30 triggers with the next round number (one keep-alive HTTPS agent, all
// in flight), which re-reconciles every parent once; it ends when the
// replicas report as many passes of that round as there are parents (polled
// over IPC every 50 ms). Measured per round: passes per second from the first
// PUT sent to the last pass's end (wall clock); the round's passes over the
// CPU time of its busiest replica (the rate with a core per replica); the
// replicas' CPU (process.cpuUsage, user + system) per pass; the benchmark's
// kube-apiserver and etcd CPU (/proc/<pid>/stat) per pass; the whole
// machine's busy CPU (/proc/stat: everything that ran) per pass and as busy
// cores. The median of the measured rounds is reported. Objects cached per
// replica: the objects in its running Kubernetes informers (parents and
// ConfigMaps), counted in the replica.
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer } from '@protean/envtest';
import { assignShards } from '@protean/sharding';
import { parseArgs } from './lib/args.mjs';
import { createAll, defineParentKind, keepAliveClient, kubeBinDir } from './lib/cluster.mjs';
import { PARENT, ROUND_ANNOTATION, timeBurn, TRIGGER } from './lib/replicaWorkload.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { median } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const quick = flags.quick === true;
const NAMESPACES = Array.from({ length: quick ? 10 : 30 }, (_, i) => `bench-${String(i).padStart(2, '0')}`);
const PER_NAMESPACE = quick ? 20 : 40;
const PARENTS = NAMESPACES.length * PER_NAMESPACE;
const REPLICA_COUNTS = [1, 2, 3];
const WARMUP_ROUNDS = 1;
const ROUNDS = quick ? 2 : 5;
/** SHA-256 rounds per pass: a fixed amount of work, about 2 ms of CPU on this machine when it is quiet. */
const HASH_ROUNDS = 800;
const LEASE_NAMESPACE = 'bench-shards';
/** The namespaces holding parents carry this label; the replicas balance their split over them. */
const KEY_LABEL = 'bench.protean.dev/parents';
const CONFIG = { workers: 4, rateLimit: 10_000, burstLimit: 10_000, resyncPeriodMs: 0, queueShutdownTimeoutMs: 30_000 };
const child = fileURLToPath(new URL('./lib/replica.child.mjs', import.meta.url));
const now = () => performance.timeOrigin + performance.now();

/** Busy and total CPU of the whole machine, in seconds, from /proc/stat. */
function machineCpu() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
  const hz = 100;
  return { busy: (user + nice + system + irq + softirq + steal) / hz, idle: (idle + iowait) / hz };
}

/** CPU seconds (user + system) of the processes whose command line contains `needle` (our etcd and kube-apiserver). */
function pidsWith(needle) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(entry);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
function processCpuS(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

/** One replica process, driven over IPC. */
class Replica {
  constructor(identity, init) {
    this.identity = identity;
    this.stderr = '';
    this.pending = new Map();
    this.nextId = 1;
    this.proc = fork(child, [], { execArgv: [], stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
    this.proc.stderr.setEncoding('utf8').on('data', (c) => (this.stderr = (this.stderr + c).slice(-4000)));
    this.exited = new Promise((resolve) => this.proc.once('exit', (code, signal) => resolve({ code, signal })));
    this.ready = new Promise((resolve, reject) => {
      this.proc.on('message', (m) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'report') this.pending.get(m.id)?.(m);
      });
      void this.exited.then((e) => reject(new Error(`${identity} exited (${JSON.stringify(e)}) before it was ready: ${this.stderr}`)));
    });
    this.ready.catch(() => {});
    this.proc.send({ type: 'init', identity, ...init });
  }

  report(extra = { type: 'report' }) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.identity} did not report within 10 s: ${this.stderr}`)), 10_000);
      this.pending.set(id, (m) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(m);
      });
      this.proc.send({ ...extra, id });
    });
  }

  async stop() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.send({ type: 'stop' });
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 30_000);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

const hex = (ranges) => ranges.map((r) => [r.start.toString(16), r.end.toString(16)]);
const passesOf = (reports, round) => reports.reduce((n, r) => n + (r.rounds[round]?.passes ?? 0), 0);

let server;
let replicas = [];
let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    progress('replicas', `${signal}: stopping the replicas, kube-apiserver and etcd`);
    for (const r of replicas) r.proc.kill('SIGKILL');
    void Promise.resolve(server?.stop()).finally(() => process.exit(130));
  });
}

const loadBefore = loadavg();
let handlerMs;
const rows = [];
const notes = [];
const details = { config: CONFIG, parents: PARENTS, namespaces: NAMESPACES.length, runs: [] };
try {
  const binDir = kubeBinDir();
  progress('replicas', `starting etcd + kube-apiserver (ShardedListAndWatch on) from ${binDir}`);
  let t = performance.now();
  server = await startKubeApiServer({ binDir, extraArgs: ['--feature-gates=ShardedListAndWatch=true'] });
  rows.push({
    measure: 'setup: start etcd + kube-apiserver',
    size: '-',
    work: 1,
    value: (performance.now() - t) / 1000,
    unit: 's',
    cost: 'none',
    digits: 1,
  });
  const kc = server.kubeConfig;
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);

  t = performance.now();
  await defineParentKind(kc, PARENT, 'ShardedParent');
  await core.createNamespace({ body: { metadata: { name: LEASE_NAMESPACE } } });
  for (const ns of NAMESPACES) await core.createNamespace({ body: { metadata: { name: ns, labels: { [KEY_LABEL]: 'true' } } } });
  const trigger = (ns, round) => ({ metadata: { name: TRIGGER, namespace: ns, annotations: { [ROUND_ANNOTATION]: String(round) } } });
  for (const ns of NAMESPACES) await core.createNamespacedConfigMap({ namespace: ns, body: trigger(ns, 0) });
  await createAll(0, PARENTS, 24, (i) => {
    const ns = NAMESPACES[i % NAMESPACES.length];
    return custom.createNamespacedCustomObject({
      group: PARENT.group,
      version: PARENT.version,
      namespace: ns,
      plural: PARENT.resource,
      body: { apiVersion: `${PARENT.group}/${PARENT.version}`, kind: 'ShardedParent', metadata: { name: `p-${i}` }, spec: { index: i } },
    });
  });
  rows.push({
    measure: `setup: CRD, ${NAMESPACES.length} namespaces, ${PARENTS} parents, ${NAMESPACES.length} triggers`,
    size: '-',
    work: 1,
    value: (performance.now() - t) / 1000,
    unit: 's',
    cost: 'none',
    digits: 1,
  });
  const keys = [...NAMESPACES].sort();
  const serverPids = pidsWith(server.etcdUrl);
  if (serverPids.length < 2) throw new Error(`found ${serverPids.length} etcd/kube-apiserver processes for ${server.etcdUrl}, expected 2`);

  const hashRounds = HASH_ROUNDS;
  handlerMs = timeBurn(hashRounds);
  rows.push({
    measure: 'handler CPU per pass, alone in this process',
    size: `${hashRounds} SHA-256 rounds`,
    work: 1,
    value: handlerMs,
    unit: 'ms',
    cost: 'none',
    digits: 2,
  });

  const client = await keepAliveClient(kc);
  let round = 0;
  const byN = { throughput: [], capacity: [], replicaCpu: [], serverCpu: [], machineCpu: [], busyCores: [], cached: [] };
  try {
    for (const n of REPLICA_COUNTS) {
      const identities = Array.from({ length: n }, (_, i) => `replica-${i}`);
      const group = `bench-n${n}`;
      progress('replicas', `${n} replica(s): starting, waiting for the split and the first reconcile of ${PARENTS} parents`);
      const init = {
        kubeConfig: kc.exportConfig(),
        group,
        leaseNamespace: LEASE_NAMESPACE,
        keysSelector: `${KEY_LABEL}=true`,
        members: n,
        hashRounds,
        config: CONFIG,
        parent: PARENT,
      };
      replicas = identities.map((id) => new Replica(id, init));
      await Promise.all(replicas.map((r) => r.ready));
      const want = assignShards(identities, keys);
      const reportAll = () => Promise.all(replicas.map((r) => r.report()));
      let reports = [];
      await waitFor(
        async () => {
          reports = await reportAll();
          const split = reports.every(
            (r, i) =>
              r.members.join() === identities.join() &&
              JSON.stringify(r.ranges) === JSON.stringify(hex(want.get(identities[i]))) &&
              r.liveInformers === 2,
          );
          return split && passesOf(reports, round) >= PARENTS;
        },
        { message: `${n} replica(s) to settle and reconcile every parent once`, timeoutMs: 120_000, intervalMs: 100 },
      );
      const cached = reports.map((r) => Object.values(r.cached).reduce((a, b) => a + b, 0));
      const perReplica = reports.map((r) => ({ identity: r.identity ?? '', ...r.cached }));

      const samples = [];
      for (let k = 0; k < WARMUP_ROUNDS + ROUNDS; k++) {
        round++;
        const progressAll = () => Promise.all(replicas.map((r) => r.report({ type: 'progress', round })));
        const cpuBefore = (await progressAll()).map((r) => r.cpuMs);
        const machineBefore = machineCpu();
        const serverBefore = processCpuS(serverPids);
        const t0 = now();
        await Promise.all(
          NAMESPACES.map((ns) => client.request('PUT', `/api/v1/namespaces/${ns}/configmaps/${TRIGGER}`, trigger(ns, round))),
        );
        await waitFor(
          async () => {
            reports = await progressAll();
            return reports.reduce((a, r) => a + r.round.passes, 0) >= PARENTS;
          },
          { message: `round ${round}: ${PARENTS} passes`, timeoutMs: 300_000, intervalMs: 50 },
        );
        const machineAfter = machineCpu();
        const serverCpuS = processCpuS(serverPids) - serverBefore;
        const end = Math.max(...reports.map((r) => r.round.lastEnd ?? 0));
        const passes = reports.reduce((a, r) => a + r.round.passes, 0);
        const wallS = (end - t0) / 1000;
        const cpuMsPerReplica = reports.map((r, i) => r.cpuMs - cpuBefore[i]);
        const replicaCpuMs = cpuMsPerReplica.reduce((a, b) => a + b, 0);
        const busy = machineAfter.busy - machineBefore.busy;
        const sample = {
          round,
          passes,
          passesPerReplica: reports.map((r) => r.round.passes),
          wallS,
          throughput: passes / wallS,
          replicaCpuMsPerPass: replicaCpuMs / passes,
          cpuMsPerReplica,
          // The round's passes over the CPU time of its busiest replica: the rate if each replica had a core of its own.
          cpuBoundThroughput: passes / (Math.max(...cpuMsPerReplica) / 1000),
          serverCpuMsPerPass: (serverCpuS * 1000) / passes,
          machineCpuMsPerPass: (busy * 1000) / passes,
          busyCores: busy / (busy + machineAfter.idle - machineBefore.idle),
        };
        if (k >= WARMUP_ROUNDS) samples.push(sample);
      }
      const med = (f) => median(samples.map(f));
      const result = {
        replicas: n,
        cachedPerReplica: perReplica,
        throughput: med((s) => s.throughput),
        replicaCpuMsPerPass: med((s) => s.replicaCpuMsPerPass),
        cpuBoundThroughput: med((s) => s.cpuBoundThroughput),
        serverCpuMsPerPass: med((s) => s.serverCpuMsPerPass),
        machineCpuMsPerPass: med((s) => s.machineCpuMsPerPass),
        busyCores: med((s) => s.busyCores),
        samples,
      };
      details.runs.push(result);
      const size = `${n} replica${n === 1 ? '' : 's'}`;
      byN.throughput.push({
        measure: `full re-reconcile of ${PARENTS} parents, CPU-bound handler`,
        size,
        work: n,
        value: result.throughput,
        unit: 'passes/s',
        cost: 'inverse',
      });
      byN.capacity.push({
        measure: 'same, passes per CPU-second of the busiest replica (a core each)',
        size,
        work: n,
        value: result.cpuBoundThroughput,
        unit: 'passes/s',
        cost: 'inverse',
      });
      byN.replicaCpu.push({
        measure: 'replica CPU per pass (all replicas)',
        size,
        work: n,
        value: result.replicaCpuMsPerPass,
        unit: 'ms',
        cost: 'direct',
        digits: 2,
      });
      byN.serverCpu.push({
        measure: 'kube-apiserver + etcd CPU per pass',
        size,
        work: n,
        value: result.serverCpuMsPerPass,
        unit: 'ms',
        cost: 'direct',
        digits: 2,
      });
      byN.machineCpu.push({
        measure: "machine CPU per pass (every process, also others' work)",
        size,
        work: n,
        value: result.machineCpuMsPerPass,
        unit: 'ms',
        cost: 'direct',
        digits: 2,
      });
      byN.busyCores.push({
        measure: 'machine busy during a round (of 2 cores)',
        size,
        work: n,
        value: result.busyCores * 2,
        unit: 'cores',
        cost: 'none',
        digits: 2,
      });
      byN.cached.push({
        measure: 'objects cached per replica (parents + ConfigMaps), largest',
        size,
        work: n,
        value: Math.max(...cached),
        unit: 'objects',
        cost: 'none',
        digits: 0,
      });
      notes.push(
        `${size}: objects cached per replica ${cached.join(' / ')} (${perReplica.map((p) => JSON.stringify(p)).join(', ')}); passes per replica in the last round ${samples.at(-1).passesPerReplica.join(' / ')}; ` +
          `throughput per round ${samples.map((s) => s.throughput.toFixed(0)).join(', ')} passes/s`,
      );
      progress(
        'replicas',
        `${size}: ${result.throughput.toFixed(0)} passes/s, ${result.replicaCpuMsPerPass.toFixed(2)} ms replica CPU per pass, cached ${cached.join('/')}`,
      );
      const exits = await Promise.all(replicas.map((r) => r.stop()));
      const bad = exits.filter((e) => e.code !== 0);
      if (bad.length > 0) throw new Error(`${bad.length} replica(s) did not exit 0: ${JSON.stringify(bad)}`);
      replicas = [];
    }
  } finally {
    client.close();
  }
  rows.push(...byN.throughput, ...byN.capacity, ...byN.replicaCpu, ...byN.serverCpu, ...byN.machineCpu, ...byN.busyCores, ...byN.cached);
} finally {
  for (const r of replicas) r.proc.kill('SIGKILL');
  progress('replicas', 'stopping kube-apiserver and etcd');
  await server?.stop();
}

emitResult(flags, {
  name: 'replicas',
  title: 'Sharded replicas on a real kube-apiserver (ShardedListAndWatch on)',
  rows,
  notes: [
    `this machine has 2 cores, shared by the replicas, kube-apiserver, etcd and this process: throughput can scale with replicas only until the cores are busy; read it with the CPU per pass`,
    `load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} after: 'machine' rows include whatever else ran; the replica and server rows count only those processes`,
    `${PARENTS} parents over ${NAMESPACES.length} namespaces (the split's keys), namespace shard key, ${CONFIG.workers} workers per replica; ` +
      `handler: ${HASH_ROUNDS} SHA-256 rounds (${handlerMs.toFixed(2)} ms of CPU alone here); ${WARMUP_ROUNDS} warm-up + ${ROUNDS} measured round(s) per replica count, median reported; wall clock from the first trigger PUT to the last pass's end`,
    ...notes,
  ],
  details,
});
