// Runs every Protean benchmark, each in its own Node process
// (`node --expose-gc <name>.mjs`) so one benchmark's heap, JIT state and
// garbage never colour another's figures; collects their results into
// results/latest.json and prints one table.
//
//   pnpm bench                          everything (the scale benchmark alone takes 30-40 minutes on 2 cores)
//   node --expose-gc run.mjs --quick    small sizes, for development
//   node --expose-gc run.mjs --only=routing,queue
//   node --expose-gc run.mjs --only=scale   200 CRDs x 500 objects, before/after streaming lists and a shared connection
//   node --expose-gc run.mjs --only=replicas   sharded replicas (1, 2, 3 processes) on kube-apiserver with ShardedListAndWatch
//   node --expose-gc run.mjs --only=anchor     Protean's metadata informers against client-go's, same server and objects
//   node --expose-gc run.mjs --only=imports    RSS of an empty Node process and what importing each package adds
//   node --expose-gc run.mjs --only=objcache   requests per pass, API server CPU and passes/s in a burst, GET vs the object cache
//                                              (burst size: BENCH_OBJCACHE_UPDATES, BENCH_OBJCACHE_PARENTS, BENCH_OBJCACHE_ROUNDS)
//   node --expose-gc run.mjs --only=webhooks   Protean's WebhookServer against controller-runtime's webhook server, 1/16/64 in flight (about 8 minutes)
//
// Benchmarks never assert a time: a failure here means a benchmark could not
// run (a crash, a kube-apiserver that would not start), never "too slow".
import { spawn } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './lib/args.mjs';
import { formatNotes, formatTable } from './lib/report.mjs';

const BENCHMARKS = [
  'routing',
  'queue',
  'queue-priority',
  'memory',
  'ingest',
  'e2e',
  'objcache',
  'index',
  'scale',
  'replicas',
  'imports',
  'anchor',
  'webhooks',
];
const here = fileURLToPath(new URL('.', import.meta.url));

const flags = parseArgs(process.argv.slice(2), ['quick', 'only']);
const quick = flags.quick === true;
const only = typeof flags.only === 'string' ? flags.only.split(',').filter((n) => n !== '') : BENCHMARKS;
const unknown = only.filter((n) => !BENCHMARKS.includes(n));
if (unknown.length > 0) throw new Error(`--only: unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}`);
const selected = BENCHMARKS.filter((n) => only.includes(n));

let current;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // Let the running benchmark clean up (the e2e one stops its kube-apiserver and etcd).
    if (current !== undefined) current.kill(signal);
    else process.exit(130);
  });
}

/** Runs one benchmark script; resolves with its result, or { name, error } if it failed. */
function runBenchmark(name, outFile) {
  return new Promise((resolve) => {
    const args = ['--expose-gc', join(here, `${name}.mjs`), `--out=${outFile}`, ...(quick ? ['--quick'] : [])];
    current = spawn(process.execPath, args, { cwd: here, stdio: 'inherit' });
    current.once('exit', (code, signal) => {
      current = undefined;
      if (code === 0) {
        try {
          resolve(JSON.parse(readFileSync(outFile, 'utf8')));
        } catch (err) {
          resolve({ name, error: `no readable result: ${err.message}` });
        }
      } else {
        resolve({ name, error: signal !== null ? `killed by ${signal}` : `exited with code ${code}` });
      }
    });
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'protean-bench-'));
const startedAt = new Date();
const loadBefore = loadavg();
const results = [];
const t0 = performance.now();
try {
  for (const name of selected) {
    process.stderr.write(`\n=== ${name}${quick ? ' (quick)' : ''}\n`);
    const began = performance.now();
    const result = await runBenchmark(name, join(scratch, `${name}.json`));
    result.wallMs = Math.round(performance.now() - began);
    results.push(result);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const totalWallMs = Math.round(performance.now() - t0);

const machine = {
  node: process.version,
  platform: `${process.platform}/${process.arch}`,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
};
const report = {
  startedAt: startedAt.toISOString(),
  quick,
  only: selected,
  machine,
  loadAverage: { before: loadBefore, after: loadavg() },
  totalWallMs,
  benchmarks: results,
};
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);

const fmtLoad = (l) => l.map((x) => x.toFixed(1)).join(' ');
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
console.log(
  `\nProtean benchmarks${quick ? ' (--quick)' : ''}: node ${machine.node}, ${machine.platform}, ${machine.cpus} x ${machine.cpuModel}; ` +
    `load average ${fmtLoad(loadBefore)} before, ${fmtLoad(report.loadAverage.after)} after\n`,
);
console.log(formatTable(results));
console.log(
  `\n"vs smallest size": how much the work grew and how the cost grew with it. Cost is time per item for rates (events/s, cycles/s, calls/s, objects/s), otherwise the value itself (bytes per object, latency, total time).`,
);
console.log(`\n${formatNotes(results)}`);
// Benchmarks that compare contenders side by side (anchor) add tables of their own.
for (const table of results.flatMap((r) => r.tables ?? [])) console.log(`\n${table}`);
console.log(
  `\nWall time: ${results.map((r) => `${r.name} ${seconds(r.wallMs)}`).join(', ')}; total ${seconds(totalWallMs)}. Results: bench/results/latest.json`,
);
if (results.some((r) => r.error !== undefined)) process.exitCode = 1;
