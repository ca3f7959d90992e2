// The admission webhook server: Protean's WebhookServer (@protean/webhooks)
// against controller-runtime's webhook server (webhook.Server with
// admission.Webhook handlers, sigs.k8s.io/controller-runtime v0.25.3), the
// same two handlers on each:
//   /validate  denies an object that has data.forbidden (every 4th request has it)
//   /mutate    labels the object bench.protean.dev/seen=true, answered as a JSON Patch
//              (Protean: the handler returns the object, the server diffs it;
//              Go: admission.PatchResponseFromRaw)
//
// A throwaway CA and serving certificate for 127.0.0.1 are made with openssl
// in a temp dir; each server runs in its own process for the whole benchmark
// (Protean: lib/webhookServer.protean.mjs; Go: `webhook-anchor -serve`, from
// bench/webhook-anchor, built and cached under ~/.cache/protean by
// lib/clientGoAnchor.mjs). One load generator drives both, so the client is the
// same: `webhook-anchor -load`, AdmissionReview v1 CREATEs of a ConfigMap
// (about 1.8 kB) POSTed over HTTP/2 on one connection, as kube-apiserver calls
// webhooks, from 1, 16 and 64 workers each waiting for its answer before it
// sends the next; every answer is checked (uid, allowed or denied with the
// message, the patch).
//
// Per run (server x handler x in-flight): a warm-up (not measured), then the
// measured window. Over that window, read here from /proc: the server
// process's CPU time (utime + stime of /proc/<pid>/stat) and its RSS (VmRSS
// of /proc/<pid>/status every 250 ms as it runs, no forced GC: the highest
// sample); from the load generator: requests answered, errors, latency p50 and
// p99 (send to answer read, in microseconds). Runs are interleaved (Protean,
// controller-runtime for each case, the order flipped every other round) and
// the medians over the rounds are reported with the ratios.
//
//   node --expose-gc webhooks.mjs                 3 rounds, 2 s warm-up + 10 s measured per run (about 8 minutes)
//   node --expose-gc webhooks.mjs --quick         1 round, 1 s + 3 s
//   node --expose-gc webhooks.mjs --rounds=5 --seconds=20 --warmup=3 --concurrency=1,64 --kinds=mutate
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './lib/args.mjs';
import { webhookAnchorBinary } from './lib/clientGoAnchor.mjs';
import { cpuMsOf, statusBytes } from './lib/procfs.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { median } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out', 'rounds', 'seconds', 'warmup', 'concurrency', 'kinds']);
const quick = flags.quick === true;
const here = fileURLToPath(new URL('.', import.meta.url));

function positiveNumber(name, fallback) {
  const value = flags[name] === undefined ? fallback : Number(flags[name]);
  if (!(value > 0)) throw new Error(`--${name} must be a number > 0, got ${JSON.stringify(flags[name])}`);
  return value;
}
const ROUNDS = positiveNumber('rounds', quick ? 1 : 3);
const SECONDS = positiveNumber('seconds', quick ? 3 : 10);
const WARMUP = positiveNumber('warmup', quick ? 1 : 2);
const CONCURRENCY = (typeof flags.concurrency === 'string' ? flags.concurrency : '1,16,64').split(',').map(Number);
if (CONCURRENCY.some((c) => !Number.isInteger(c) || c < 1)) throw new Error(`--concurrency: integers >= 1, got ${flags.concurrency}`);
const KINDS = (typeof flags.kinds === 'string' ? flags.kinds : 'validate,mutate').split(',');
if (KINDS.some((k) => k !== 'validate' && k !== 'mutate')) throw new Error(`--kinds: validate and/or mutate, got ${flags.kinds}`);

const SERVERS = [
  { key: 'protean', label: 'Protean' },
  { key: 'go', label: 'controller-runtime' },
];
const MiB = 1024 * 1024;
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' ');

/** A throwaway CA and a serving certificate for 127.0.0.1 signed by it, in `dir`. */
function makeCertificates(dir) {
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=protean-bench-webhooks-ca');
  openssl('req', ...ec, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(
    join(dir, 'serving.ext'),
    'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'tls.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'serving.ext',
    '-out',
    'tls.crt',
  );
  return { ca: join(dir, 'ca.crt'), cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
}

/** A port free on 127.0.0.1 just now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Reads a child's stdout line by line: `onLine` gets every JSON line, in order. */
function jsonLines(child, onLine) {
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (!line.startsWith('{')) continue;
      try {
        onLine(JSON.parse(line));
      } catch {
        // Not one of ours (a log line): skip.
      }
    }
  });
}

/** Starts one server process and resolves once it printed {"ready":true}. */
async function startServer(server, certs, goBinary) {
  const port = await freePort();
  const [file, args] =
    server.key === 'protean'
      ? [
          process.execPath,
          [join(here, 'lib', 'webhookServer.protean.mjs'), `--cert-file=${certs.cert}`, `--key-file=${certs.key}`, `--port=${port}`],
        ]
      : [goBinary, ['-serve', '-cert-file', certs.cert, '-key-file', certs.key, '-port', String(port)]];
  const child = spawn(file, args, { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${server.label} server not ready after 30 s; stderr: ${stderr}`)), 30_000);
    jsonLines(child, (msg) => {
      if (msg.ready === true) {
        clearTimeout(timer);
        resolve(msg);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${server.label} server exited (${signal ?? code}) before it was ready; stderr: ${stderr}`));
    });
  });
  child.on('exit', (code, signal) => {
    if (!stopping) progress('webhooks', `${server.label} server exited (${signal ?? code}); stderr: ${stderr}`);
  });
  return { ...server, child, pid: child.pid, url: ready.url, port, rssIdleBytes: statusBytes(child.pid, 'VmRSS') };
}

/** One measured run of the load generator against `server`'s `kind` handler with `concurrency` workers. */
async function runLoad(server, kind, concurrency, certs, goBinary) {
  const args = ['-load', '-url', `${server.url}/${kind}`, '-ca', certs.ca, '-concurrency', String(concurrency)];
  args.push('-warmup', `${WARMUP}s`, '-duration', `${SECONDS}s`);
  const loadBefore = loadavg();
  const child = spawn(goBinary, args, { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const measured = {};
  const rssSamples = [];
  let sampler;
  let result;
  jsonLines(child, (msg) => {
    if (msg.phase === 'measure') {
      measured.cpuStart = cpuMsOf(server.pid);
      measured.loadCpuStart = cpuMsOf(child.pid);
      measured.start = performance.now();
      sampler = setInterval(() => rssSamples.push(statusBytes(server.pid, 'VmRSS')), 250);
    } else if (msg.phase === 'end') {
      measured.cpuEnd = cpuMsOf(server.pid);
      measured.loadCpuEnd = cpuMsOf(child.pid);
      measured.end = performance.now();
      rssSamples.push(statusBytes(server.pid, 'VmRSS'));
      clearInterval(sampler);
    } else if (msg.requests !== undefined) {
      result = msg;
    }
  });
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c, signal) => resolve(signal ?? c));
  });
  clearInterval(sampler);
  if (code !== 0 || result === undefined)
    throw new Error(`load generator against ${server.label} /${kind} exited with ${code}; stderr: ${stderr}`);
  if (measured.cpuStart === undefined || measured.cpuEnd === undefined)
    throw new Error(`${server.label} server gone during the run; ${stderr}`);
  const cpuMs = measured.cpuEnd - measured.cpuStart;
  const rss = rssSamples.filter((b) => b !== undefined);
  return {
    server: server.key,
    kind,
    concurrency,
    ...result,
    windowMs: measured.end - measured.start,
    serverCpuMs: cpuMs,
    serverCores: cpuMs / (measured.end - measured.start),
    requestsPerCpuSecond: cpuMs > 0 ? result.requests / (cpuMs / 1000) : undefined,
    loadGeneratorCpuMs: measured.loadCpuEnd - measured.loadCpuStart,
    rssPeakBytes: Math.max(...rss),
    rssEndBytes: rss.at(-1),
    loadAverage: { before: loadBefore, after: loadavg() },
  };
}

/** The figures compared, each read from a run. */
const MEASURES = [
  { key: 'p50', label: 'latency p50', unit: 'µs', digits: 0, of: (r) => r.p50Us, cost: 'direct' },
  { key: 'p99', label: 'latency p99', unit: 'µs', digits: 0, of: (r) => r.p99Us, cost: 'direct' },
  { key: 'rps', label: 'requests/s', unit: '/s', digits: 0, of: (r) => r.requestsPerSecond, cost: 'inverse' },
  { key: 'perCpu', label: 'requests per server CPU-second', unit: '', digits: 0, of: (r) => r.requestsPerCpuSecond, cost: 'inverse' },
  { key: 'cores', label: 'server CPU (cores busy)', unit: '', digits: 2, of: (r) => r.serverCores, cost: 'direct' },
  { key: 'rss', label: 'server RSS under load (peak sample)', unit: 'MiB', digits: 0, of: (r) => r.rssPeakBytes / MiB, cost: 'direct' },
];

const fmt = (v, digits) =>
  v === undefined || Number.isNaN(v) ? 'n/a' : v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function medianOf(runs, server, kind, concurrency, measure) {
  const values = runs
    .filter((r) => r.server === server && r.kind === kind && r.concurrency === concurrency)
    .map(measure.of)
    .filter((v) => Number.isFinite(v));
  return values.length === 0 ? undefined : median(values);
}

/** The markdown table of one handler: a row per in-flight count and measure, both servers and the ratio. */
function kindTable(runs, kind) {
  const header = ['in flight', 'median', ...SERVERS.map((s) => s.label), 'Protean / controller-runtime'];
  const lines = [];
  for (const c of CONCURRENCY) {
    for (const m of MEASURES) {
      const [p, g] = SERVERS.map((s) => medianOf(runs, s.key, kind, c, m));
      const cell = (v) => (v === undefined ? 'n/a' : `${fmt(v, m.digits)}${m.unit === '' || m.unit === '/s' ? '' : ` ${m.unit}`}`);
      lines.push([String(c), m.label, cell(p), cell(g), p === undefined || !(g > 0) ? 'n/a' : `${fmt(p / g, 2)}x`]);
    }
  }
  const render = (cells) => `| ${cells.join(' | ')} |`;
  return [render(header), `|---:|---|---:|---:|---:|`, ...lines.map(render)].join('\n');
}

let stopping = false;
const servers = [];
let scratch;
const stopAll = () => {
  stopping = true;
  for (const s of servers) s.child.kill('SIGTERM');
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    progress('webhooks', `${signal}: stopping the servers`);
    stopAll();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    process.exit(130);
  });
}

const loadAtStart = loadavg();
progress('webhooks', `load average at start ${fmtLoad(loadAtStart)}`);
const runs = [];
const goBinary = webhookAnchorBinary((m) => progress('webhooks', m));
scratch = mkdtempSync(join(tmpdir(), 'protean-webhooks-'));
try {
  const certs = makeCertificates(scratch);
  for (const server of SERVERS) servers.push(await startServer(server, certs, goBinary));
  for (const s of servers) progress('webhooks', `${s.label} server pid ${s.pid} at ${s.url}, RSS ${fmt(s.rssIdleBytes / MiB, 0)} MiB`);
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved: both servers for each case, the order flipped every other round.
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const concurrency of CONCURRENCY) {
      for (const kind of KINDS) {
        for (const server of order) {
          const run = await runLoad(server, kind, concurrency, certs, goBinary);
          runs.push({ round: round + 1, ...run });
          progress(
            'webhooks',
            `round ${round + 1}/${ROUNDS} /${kind} ${concurrency} in flight, ${server.label}: ${fmt(run.requestsPerSecond, 0)} req/s, ` +
              `p50 ${run.p50Us} µs, p99 ${run.p99Us} µs, server CPU ${fmt(run.serverCores, 2)} cores ` +
              `(${fmt(run.requestsPerCpuSecond, 0)} req per CPU-s), RSS ${fmt(run.rssPeakBytes / MiB, 0)} MiB, ` +
              `load generator ${fmt(run.loadGeneratorCpuMs / run.windowMs, 2)} cores, errors ${run.errors}, load ${fmtLoad(loadavg())}` +
              (run.firstError ? `; first error: ${run.firstError}` : ''),
          );
        }
      }
    }
  }
} finally {
  stopAll();
  rmSync(scratch, { recursive: true, force: true });
}
const loadAtEnd = loadavg();
progress('webhooks', `load average at end ${fmtLoad(loadAtEnd)}`);

const rows = [];
const tables = [];
for (const kind of KINDS) {
  const heading = `/${kind}: median of ${ROUNDS} round(s) of ${SECONDS} s (after ${WARMUP} s of warm-up)`;
  tables.push(`${heading}\n\n${kindTable(runs, kind)}`);
  for (const m of MEASURES) {
    for (const c of CONCURRENCY) {
      const [p, g] = SERVERS.map((s) => medianOf(runs, s.key, kind, c, m));
      rows.push({
        measure: `/${kind} ${m.label}: Protean / controller-runtime`,
        size: `${c} in flight`,
        work: c,
        value: p === undefined || !(g > 0) ? undefined : p / g,
        unit: 'x',
        digits: 2,
        cost: 'none',
      });
    }
  }
}
const errors = runs.reduce((n, r) => n + r.errors, 0);
const notes = [
  `${ROUNDS} round(s), ${WARMUP} s warm-up + ${SECONDS} s measured per run, servers interleaved; one Go load generator (HTTP/2, one connection) for both; ` +
    `load average ${fmtLoad(loadAtStart)} at start, ${fmtLoad(loadAtEnd)} at end`,
  `ratios > 1 favour Protean for requests/s and requests per CPU-second, controller-runtime for latency, CPU and RSS`,
  `errors (wrong or failed answers) over all measured windows: ${errors}`,
  "per-handler tables with both servers' medians: see the tables printed above the summary (and `tables` in results/latest.json)",
];
const details = {
  rounds: ROUNDS,
  seconds: SECONDS,
  warmup: WARMUP,
  concurrency: CONCURRENCY,
  kinds: KINDS,
  node: process.version,
  loadAverage: { start: loadAtStart, end: loadAtEnd },
  serverRssIdleBytes: Object.fromEntries(servers.map((s) => [s.key, s.rssIdleBytes])),
  runs,
};
emitResult(flags, { name: 'webhooks', title: 'Protean WebhookServer vs controller-runtime webhook.Server', rows, notes, tables, details });
if (typeof flags.out !== 'string') console.log(`\n${tables.join('\n\n')}`);
if (errors > 0) process.exitCode = 1;
