#!/usr/bin/env node
// The root test command: type-check, lint, then every test tier, and a last
// line of totals across all packages ("N passed, N failed, N skipped").
// The default runtime is Node 24 (fetched once from the npm registry, cached;
// scripts/with-node.mjs) with the workspace's @kubernetes/client-node 2.x;
// `node20-compat` and `node20-unit` run the consumer test, the typecheck and
// the unit tests whose code path differs on Node 20 (scripts/node20Tests.mjs)
// on Node 20 with client-node 1.4.
// The kube binaries build (kube-build, CPU-heavy, ~13 min cold on 2 cores) runs
// in the background from the start, at a lower CPU priority, while the other
// steps run; Jaeger's (jaeger-build) follows it there, so the kube build has
// every spare cycle. On 2 cores, steps that keep one core busy run two at a
// time (`concurrent`): format beside typecheck, lint beside api, pack beside
// browser, and the Node 20 leg's consumer test and typecheck beside the Node 24
// consumer test; the steps that take both cores (unit, node20-unit, the real
// tier) or are timed (the freeze test) run with nothing of this run beside
// them. `real` (three test files at a time) waits for both builds (its tracing
// test needs Jaeger); `real-alone`, the freeze test, runs last.
// Usage: node scripts/test-all.mjs [--quick] [--only=<step>[,<step>...]]
//   --quick  typecheck, api, lint, format, docs, deps, event-path, node20-tests and unit only (`pnpm test:quick`)
// PROTEAN_SKIP_BROWSER=1 skips the browser step (and so the apt-get install of Chromium).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium } from './chromium.mjs';
import { obtainWorkspaceNode, WORKSPACE_NODE_VERSION as NODE_VERSION } from './with-node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, '.test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

const runStarted = Date.now();
const jestBin = join(root, 'node_modules/jest/bin/jest.js');
const nodeFlags = ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning'];
/** Longest test files first, by the durations of earlier runs on this machine (scripts/longestFirstSequencer.mjs). */
const sequencer = `--testSequencer=${join(root, 'scripts/longestFirstSequencer.mjs')}`;
const packagesWithTests = ['packages', 'examples']
  .flatMap((parent) => readdirSync(join(root, parent)).map((name) => join(parent, name)))
  .concat(['docs/guide'])
  .filter((dir) => existsSync(join(root, dir, 'jest.config.js')));
/** Packages (and the guide) with `*.real.test.ts` files: each has a jest.real.config.js. */
const realTierConfigs = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name, 'jest.real.config.js'))
  .concat([join(root, 'docs/guide/jest.real.config.js')])
  .filter((file) => existsSync(file));

/** The real-tier test files that run alone (path patterns): the freeze test. */
const RUN_ALONE = ['/src/freeze/freeze\\.real\\.test\\.ts$'];
/** The packed tarballs: made once by `pack`, installed by the Node 24 and the Node 20 consumer tests. */
const packedDir = join(resultsDir, 'packed');
/** The workspace copy pinned to client-node 1.4 that node20-compat makes and typechecks, and node20-unit tests. */
const node20Workspace = join(tmpdir(), `protean-node20-workspace-${process.pid}`);

/**
 * Each step is a check (must exit 0) or a Jest run whose counts are summed.
 * `cmd[0] === 'node'` runs on Node NODE_VERSION, with it first on PATH for
 * anything the step spawns; `process.execPath` runs on the Node that runs this script.
 * `quick` steps make up `--quick`; a `background` step starts with the run (or, with `after`, when the
 * background step it names has ended) and is reported when the step naming it in `waitFor` (a name or a list)
 * comes up (or at the end). A `concurrent` step starts in its turn and the next steps start beside it: its
 * output goes to .test-results/<name>.out and is printed, with its result, once it has ended (after the
 * foreground step it ended during, when a step names it in `waitFor`, or at the end).
 */
const steps = [
  // The kube binaries for the real tier, built from Go modules (or reused from the cache): started first, in the
  // background, niced so the steps in the foreground keep their speed and Go takes every cycle they leave.
  {
    name: 'kube-build',
    background: true,
    cmd: ['bash', [join(root, 'tools/kube-apiserver/build.sh')]],
    captureLastLine: 'PROTEAN_KUBE_BIN_DIR',
  },
  // Jaeger v2, the trace store of the real tier's tracing test, built from Go modules the same way (cold: ~18 CPU-minutes),
  // started when kube-build ends: the real tier needs only the kube binaries, and the two builds would share the
  // same spare cycles.
  {
    name: 'jaeger-build',
    background: true,
    after: 'kube-build',
    cmd: ['bash', [join(root, 'tools/jaeger/build.sh')]],
    captureLastLine: 'PROTEAN_JAEGER_BIN_DIR',
  },
  // The formatter, as part of linting: fails on any TypeScript or JavaScript file prettier would change (`pnpm format`).
  // One core, beside typecheck (which needs little more than one).
  {
    name: 'format',
    quick: true,
    concurrent: true,
    cmd: ['node', [join(root, 'node_modules/prettier/bin/prettier.cjs'), '--check', '.']],
  },
  { name: 'typecheck', quick: true, cmd: ['node', [join(root, 'node_modules/typescript/bin/tsc'), '-b']] },
  // ESLint (not type-aware: it needs no build), one core, beside api.
  { name: 'lint', quick: true, concurrent: true, cmd: ['node', [join(root, 'node_modules/eslint/bin/eslint.js'), '.']] },
  // Public API reports (etc/*.api.md) from typecheck's .d.ts: fails when a package's surface drifts.
  { name: 'api', quick: true, cmd: ['node', [join(root, 'scripts/api-report.mjs')]] },
  // docs/kro-differences.md lists every `kro-diff:` marker in the code; fails when it is stale.
  { name: 'docs', quick: true, cmd: ['node', [join(root, 'scripts/kro-differences.mjs'), '--check']] },
  // ARCHITECTURE.md's dependency graph against every package's package.json and imports, both ways.
  { name: 'deps', quick: true, cmd: ['node', [join(root, 'scripts/dependency-rules.mjs')]] },
  // ARCHITECTURE.md's walk of one child event (its hops' files and symbols, and its totals) against the code.
  { name: 'event-path', quick: true, cmd: ['node', [join(root, 'scripts/event-path.mjs')]] },
  // The Node 20 leg's choice of unit tests is whole: every test and published module on a Node-version-sensitive
  // surface is run on Node 20 or says why not (scripts/node20Tests.mjs).
  { name: 'node20-tests', quick: true, cmd: ['node', [join(root, 'scripts/node20Tests.mjs')]] },
  {
    name: 'unit',
    quick: true,
    jest: true,
    // Both cores: after the linters.
    waitFor: ['format', 'lint'],
    cmd: ['node', [...nodeFlags, jestBin, '--maxWorkers=2', sequencer, '--projects', ...packagesWithTests]],
  },
  // The publishable packages packed as `pnpm pack:all` packs them (each built by its prepack) into
  // .test-results/packed, once: the Node 24 and Node 20 consumer tests install these same tarballs. One core, beside
  // browser (a headless Chromium mostly waiting on the page).
  {
    name: 'pack',
    summary: true,
    concurrent: true,
    cmd: ['node', [join(root, 'scripts/consumer-test.mjs'), '--pack-only', '--save-tarballs', packedDir]],
  },
  // The status page as a user sees it: the demo's controller in process, its page driven in a real headless
  // Chromium (Debian's package; found on PATH or PROTEAN_CHROMIUM, installed with apt-get when missing and
  // running as root, else the step is skipped and says why; PROTEAN_SKIP_BROWSER=1 skips it). Screenshots in
  // .test-results/screenshots/.
  {
    name: 'browser',
    jest: true,
    prepare: prepareChromium,
    cmd: ['node', [...nodeFlags, jestBin, '--runInBand', '-c', join(root, 'examples/webapp/jest.browser.config.js')]],
  },
  // Node 20 + @kubernetes/client-node 1.4, what a Node 20 user runs: importing a package with client-node 2.x names
  // the fix, the consumer test with client-node 1.4, and the typecheck of a workspace copy pinned to client-node 1.4
  // and @types/node 20 (its unit tests are node20-unit). Mostly npm and tsc, one core: beside the consumer step.
  {
    name: 'node20-compat',
    summary: true,
    concurrent: true,
    waitFor: ['pack'],
    cmd: [
      process.execPath,
      [
        join(root, 'scripts/node20-compat.mjs'),
        '--parts',
        'named-error,consumer,typecheck',
        '--tarballs',
        packedDir,
        '--workspace',
        node20Workspace,
      ],
    ],
  },
  // The published packages as an npm consumer gets them: check each tarball, install with the README's command,
  // compile, run, and run a Jest test of the fixture set up as packages/testing's README says. Then (its step
  // create-protean) the packed create-protean generates each layout, which is installed from the tarballs, tested,
  // typechecked and built.
  {
    name: 'consumer',
    summary: true,
    waitFor: ['pack'],
    cmd: ['node', [join(root, 'scripts/consumer-test.mjs'), '--tarballs', packedDir]],
  },
  // The unit tests whose code path differs on Node 20 (scripts/node20Tests.mjs: each with its reason), on Node 20 in
  // node20-compat's pinned copy; both cores, so after the consumer steps.
  {
    name: 'node20-unit',
    summary: true,
    waitFor: ['node20-compat'],
    cmd: [process.execPath, [join(root, 'scripts/node20-compat.mjs'), '--parts', 'unit', '--workspace', node20Workspace]],
  },
  // The real-cluster tier: every *.real.test.ts against kube-apiserver + etcd (kube-build), three files at a time
  // on 2 cores (each starts its own servers on free ports; most of a file's time is spent waiting on leases and
  // timers: 4m05s against 5m40s two at a time, 276 tests passing either way), but for those that run alone in
  // real-alone.
  {
    name: 'real',
    // Jaeger too: the tracing test runs here (on its fixed ports, the only file that uses them).
    waitFor: ['kube-build', 'jaeger-build'],
    jest: true,
    cmd: [
      'node',
      [
        ...nodeFlags,
        jestBin,
        '--maxWorkers=3',
        sequencer,
        '--testPathIgnorePatterns',
        '/node_modules/',
        ...RUN_ALONE,
        '--projects',
        ...realTierConfigs,
      ],
    ],
  },
  // The rest of the real tier, alone and last: the freeze test, whose SIGSTOPped leader must not also be starved of
  // CPU by a second test file.
  {
    name: 'real-alone',
    waitFor: ['kube-build'],
    jest: true,
    cmd: ['node', [...nodeFlags, jestBin, '--runInBand', '--testPathPatterns', ...RUN_ALONE, '--projects', ...realTierConfigs]],
  },
];

/** The browser step's Chromium: `{ env }` to run with, `{ skip }` with the reason, or `{ error }`. */
function prepareChromium() {
  if (process.env.PROTEAN_SKIP_BROWSER === '1') return { skip: 'PROTEAN_SKIP_BROWSER=1' };
  const chromium = ensureChromium();
  if (chromium.error !== undefined) return { error: chromium.error };
  if (chromium.skip !== undefined) return { skip: `no Chromium: ${chromium.skip}` };
  const version = spawnSync(chromium.executable, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  console.log(`chromium: ${chromium.how}: ${chromium.executable} (${version})`);
  return { env: { PROTEAN_CHROMIUM: chromium.executable, PROTEAN_SCREENSHOT_DIR: join(resultsDir, 'screenshots') } };
}

const quick = process.argv.includes('--quick');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const totals = { passed: 0, failed: 0, skipped: 0 };
const sharedEnv = {};
let ok = true;
const selected = steps.filter((step) => (!only || only.includes(step.name)) && (!quick || step.quick));
const unknown = (only ?? []).filter((name) => !steps.some((step) => step.name === name));
if (unknown.length > 0) {
  console.log(`unknown step(s): ${unknown.join(', ')}; steps: ${steps.map((step) => step.name).join(', ')}`);
  process.exit(2);
}

// Background steps start now, before anything else (or when the one they come `after` has ended).
const background = new Map();
for (const step of selected.filter((s) => s.background)) background.set(step.name, startBackground(step, background.get(step.after)));

// One Node binary for every 'node' step, fetched before the first of them.
let node24;
if (selected.some((step) => step.cmd[0] === 'node')) {
  const started = Date.now();
  try {
    const { bin, cached } = obtainWorkspaceNode(NODE_VERSION);
    node24 = bin;
    console.log(
      `node v${NODE_VERSION}: ${cached ? 'cached' : 'installed from the npm registry'} at ${bin} (${((Date.now() - started) / 1000).toFixed(1)}s)`,
    );
  } catch (err) {
    console.log(`node v${NODE_VERSION}: FAILED to obtain: ${err instanceof Error ? err.message : String(err)}`);
    for (const bg of background.values()) bg.stop();
    console.log(`0 passed, 1 failed, 0 skipped`);
    process.exit(1);
  }
}
const node24Env = () => ({ PATH: `${dirname(node24)}${delimiter}${process.env.PATH ?? ''}` });

/** Concurrent steps started and not reported yet, by name: `{ step, started, outFile, outputFile, done, ended?, res? }`. */
const concurrent = new Map();

for (const step of selected) {
  if (step.background) continue;
  for (const name of [step.waitFor ?? []].flat()) {
    if (background.has(name)) await finishBackground(name);
    if (concurrent.has(name)) await finishConcurrent(name);
  }
  const onNode24 = step.cmd[0] === 'node';
  const [bin, args] = onNode24 ? [node24, step.cmd[1]] : step.cmd;
  const outputFile = join(resultsDir, `${step.name}.json`);
  const fullArgs = step.jest ? [...args, '--json', `--outputFile=${outputFile}`] : step.summary ? [...args, '--json', outputFile] : args;
  const env = () => ({ ...process.env, ...sharedEnv, ...(onNode24 ? node24Env() : {}) });
  if (step.concurrent) {
    startConcurrent(step, bin, fullArgs, outputFile, env());
    continue;
  }
  console.log(`\n=== ${step.name}: ${bin} ${fullArgs.join(' ')}`);
  const started = Date.now();
  const prepared = step.prepare?.() ?? {};
  if (prepared.skip !== undefined) {
    console.log(`=== ${step.name}: SKIPPED: ${prepared.skip}`);
    totals.skipped += 1;
    continue;
  }
  if (prepared.error !== undefined) {
    console.log(`=== ${step.name}: FAILED: ${prepared.error}`);
    totals.failed += 1;
    ok = false;
    continue;
  }
  // Not spawnSync: the event loop stays free to start a background step when the one before it ends.
  const res = await runForeground(bin, fullArgs, {
    cwd: root,
    stdio: step.captureLastLine ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    env: { ...env(), ...prepared.env },
  });
  if (step.captureLastLine && res.status === 0) {
    const last = res.stdout.trim().split('\n').pop();
    sharedEnv[step.captureLastLine] = last;
    console.log(`${step.captureLastLine}=${last}`);
  }
  account(step, res, outputFile, `in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  // Concurrent steps that ended meanwhile, in the order they started.
  for (const [name, record] of concurrent) if (record.ended !== undefined) await finishConcurrent(name);
}
for (const name of concurrent.keys()) await finishConcurrent(name);
for (const name of background.keys()) await finishBackground(name);
rmSync(node20Workspace, { recursive: true, force: true });

const wallSeconds = (Date.now() - runStarted) / 1000;
// .ci/run exports PROTEAN_CI_STARTED (epoch seconds) before `pnpm install`.
const ciStarted = Number(process.env.PROTEAN_CI_STARTED);
const sinceCi = Number.isFinite(ciStarted) && ciStarted > 0 ? `; ${minutes(Date.now() / 1000 - ciStarted)} since .ci/run started` : '';
console.log(`\nwall time: ${minutes(wallSeconds)}${sinceCi}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(ok ? 0 : 1);

/** Adds a step's counts (its Jest or summary JSON, else its exit status) to the totals and prints its result line. */
function account(step, res, outputFile, how) {
  const passedStep = res.status === 0;
  if (step.jest && existsSync(outputFile)) {
    const r = JSON.parse(readFileSync(outputFile, 'utf8'));
    totals.passed += r.numPassedTests;
    totals.failed += r.numFailedTests;
    totals.skipped += r.numPendingTests + r.numTodoTests;
    // A suite that fails to load has no failed tests; count it as one.
    if (!passedStep && r.numFailedTests === 0) totals.failed += Math.max(1, r.numFailedTestSuites);
  } else if (step.summary && existsSync(outputFile)) {
    const r = JSON.parse(readFileSync(outputFile, 'utf8'));
    totals.passed += r.passed;
    totals.failed += r.failed;
    totals.skipped += r.skipped;
    if (!passedStep && r.failed === 0) totals.failed += 1;
  } else if (!passedStep) {
    totals.failed += 1;
  }
  console.log(
    `=== ${step.name}: ${passedStep ? 'ok' : `FAILED (exit ${res.status ?? res.signal}${res.error ? `: ${res.error.message}` : ''})`} ${how}`,
  );
  ok &&= passedStep;
}

/** Starts a concurrent step with its stdout and stderr in `.test-results/<name>.out`; the next step starts beside it. */
function startConcurrent(step, bin, args, outputFile, env) {
  const outFile = join(resultsDir, `${step.name}.out`);
  console.log(`\n=== ${step.name}: started beside the next steps: ${bin} ${args.join(' ')} (output: ${outFile})`);
  const out = openSync(outFile, 'w');
  const record = { step, started: Date.now(), outFile, outputFile };
  const child = spawn(bin, args, { cwd: root, stdio: ['ignore', out, out], env });
  closeSync(out);
  record.done = new Promise((resolve) => {
    child.on('error', (err) => resolve({ status: null, signal: null, error: err }));
    child.on('close', (status, signal) => resolve({ status, signal }));
  }).then((res) => {
    record.ended = Date.now();
    record.res = res;
    return res;
  });
  concurrent.set(step.name, record);
}

/** Waits for a concurrent step (once), prints its output and reports it like a foreground step. */
async function finishConcurrent(name) {
  const record = concurrent.get(name);
  if (record === undefined) return;
  concurrent.delete(name);
  const waitStarted = Date.now();
  const res = await record.done;
  const waitedSeconds = (Date.now() - waitStarted) / 1000;
  console.log(`\n=== ${name}: output (it ran beside the steps above):`);
  process.stdout.write(readFileSync(record.outFile, 'utf8'));
  const waited = waitedSeconds >= 1 ? `; waited ${waitedSeconds.toFixed(1)}s for it` : '';
  account(record.step, res, record.outputFile, `in ${((record.ended - record.started) / 1000).toFixed(1)}s (beside other steps${waited})`);
}

function minutes(seconds) {
  return `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
}

/** Runs a foreground step's command to its end: `{ status, signal, stdout }` (stdout when piped). */
function runForeground(bin, args, options) {
  return new Promise((resolve) => {
    const child = spawn(bin, args, options);
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.on('error', (err) => resolve({ status: null, signal: null, stdout, error: err }));
    child.on('close', (status, signal) => resolve({ status, signal, stdout }));
  });
}

/**
 * Starts a background step with its stdout and stderr in
 * `.test-results/<name>.out` and `.log` (the foreground steps own the terminal),
 * niced where `nice` exists; with `predecessor` (another background step's record),
 * once that one has ended, whatever its outcome.
 * Returns `{ step, started, exited, outFile, logFile, stop }`.
 */
function startBackground(step, predecessor) {
  const [bin, args] = step.cmd;
  const outFile = join(resultsDir, `${step.name}.out`);
  const logFile = join(resultsDir, `${step.name}.log`);
  const niced = process.platform !== 'win32' && spawnSync('nice', ['true']).status === 0;
  const [cmd, cmdArgs] = niced ? ['nice', ['-n', '10', bin, ...args]] : [bin, args];
  const record = { step, started: Date.now(), outFile, logFile, child: undefined, stopped: false };
  const launch = () => {
    if (record.stopped) return Promise.resolve({ status: null, signal: 'SIGTERM' });
    const [out, log] = [openSync(outFile, 'w'), openSync(logFile, 'w')];
    console.log(`=== ${step.name}: started in the background${niced ? ' (nice 10)' : ''}: ${bin} ${args.join(' ')} (log: ${logFile})`);
    record.started = Date.now();
    const child = spawn(cmd, cmdArgs, { cwd: root, stdio: ['ignore', out, log], env: { ...process.env } });
    record.child = child;
    closeSync(out);
    closeSync(log);
    return new Promise((resolve) => {
      child.on('error', (err) => resolve({ status: null, signal: null, error: err }));
      child.on('exit', (status, signal) => {
        record.ended = Date.now();
        resolve({ status, signal });
      });
    });
  };
  if (predecessor !== undefined) console.log(`=== ${step.name}: starts in the background when ${predecessor.step.name} has ended`);
  record.exited = predecessor === undefined ? launch() : predecessor.exited.then(launch);
  record.stop = () => {
    record.stopped = true;
    record.child?.kill();
  };
  return record;
}

/** Waits for a background step (once) and reports it like a foreground step. */
async function finishBackground(name) {
  const bg = background.get(name);
  if (bg === undefined) return;
  background.delete(name);
  const waitStarted = Date.now();
  const res = await bg.exited;
  const waitedSeconds = (Date.now() - waitStarted) / 1000;
  const seconds = (((bg.ended ?? Date.now()) - bg.started) / 1000).toFixed(1);
  const passedStep = res.status === 0;
  if (bg.step.captureLastLine && passedStep) {
    const last = readFileSync(bg.outFile, 'utf8').trim().split('\n').pop();
    sharedEnv[bg.step.captureLastLine] = last;
    console.log(`${bg.step.captureLastLine}=${last}`);
  }
  if (!passedStep) {
    const tail = readFileSync(bg.logFile, 'utf8').trim().split('\n').slice(-40).join('\n');
    console.log(`--- last lines of ${bg.logFile}:\n${tail}${res.error ? `\n${res.error.message}` : ''}`);
    totals.failed += 1;
    ok = false;
  }
  const waited = waitedSeconds >= 1 ? `; waited ${waitedSeconds.toFixed(1)}s for it` : '';
  console.log(
    `=== ${name}: ${passedStep ? 'ok' : `FAILED (exit ${res.status ?? res.signal})`} in ${seconds}s (in the background${waited})`,
  );
}
