#!/usr/bin/env node
// The root test command: type-check, lint, then every test tier, and a last
// line of totals across all packages ("N passed, N failed, N skipped").
// The default runtime is Node 24 (fetched once from the npm registry, cached)
// with the workspace's @kubernetes/client-node 2.x; `node20-compat` repeats
// the unit tier and the consumer test on Node 20 with client-node 1.4.
// Usage: node scripts/test-all.mjs [--only=<step>[,<step>...]]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium } from './chromium.mjs';
import { obtainNode } from './consumer/obtainNode.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, '.test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

/** The Node.js every step runs on unless it says otherwise; keep in step with the README's "Supported runtimes". */
const NODE_VERSION = '24.22.3';
const cacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'protean');
const jestBin = join(root, 'node_modules/jest/bin/jest.js');
const nodeFlags = ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning'];
const packagesWithTests = ['packages', 'examples']
  .flatMap((parent) => readdirSync(join(root, parent)).map((name) => join(parent, name)))
  .concat(['docs/guide'])
  .filter((dir) => existsSync(join(root, dir, 'jest.config.js')));
/** Packages (and the guide) with `*.real.test.ts` files: each has a jest.real.config.js. */
const realTierConfigs = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name, 'jest.real.config.js'))
  .concat([join(root, 'docs/guide/jest.real.config.js')])
  .filter((file) => existsSync(file));

/**
 * Each step is a check (must exit 0) or a Jest run whose counts are summed.
 * `cmd[0] === 'node'` runs on Node NODE_VERSION, with it first on PATH for
 * anything the step spawns; `process.execPath` runs on the Node that runs this script.
 */
const steps = [
  { name: 'typecheck', cmd: ['node', [join(root, 'node_modules/typescript/bin/tsc'), '-b']] },
  // Public API reports (etc/*.api.md): fails when a package's surface drifts.
  { name: 'api', cmd: ['node', [join(root, 'scripts/api-report.mjs')]] },
  { name: 'lint', cmd: ['node', [join(root, 'node_modules/eslint/bin/eslint.js'), '.']] },
  // The formatter, as part of linting: fails on any TypeScript or JavaScript file prettier would change (`pnpm format`).
  { name: 'format', cmd: ['node', [join(root, 'node_modules/prettier/bin/prettier.cjs'), '--check', '.']] },
  // docs/kro-differences.md lists every `kro-diff:` marker in the code; fails when it is stale.
  { name: 'docs', cmd: ['node', [join(root, 'scripts/kro-differences.mjs'), '--check']] },
  {
    name: 'unit',
    jest: true,
    cmd: ['node', [...nodeFlags, jestBin, '--maxWorkers=2', '--projects', ...packagesWithTests]],
  },
  // The status page as a user sees it: the demo's controller in process, its page driven in a real headless
  // Chromium (Debian's package; found on PATH or PROTEAN_CHROMIUM, installed with apt-get when missing and
  // running as root, else the step is skipped and says why). Screenshots in .test-results/screenshots/.
  {
    name: 'browser',
    jest: true,
    prepare: prepareChromium,
    cmd: ['node', [...nodeFlags, jestBin, '--runInBand', '-c', join(root, 'examples/webapp/jest.browser.config.js')]],
  },
  // The published packages as an npm consumer gets them: pack, check each tarball, install with the
  // README's command, compile, run, and run a Jest test of the fixture set up as packages/testing's README says.
  { name: 'consumer', summary: true, cmd: ['node', [join(root, 'scripts/consumer-test.mjs')]] },
  // Node 20 + @kubernetes/client-node 1.4: typecheck, every unit test and the consumer test again.
  { name: 'node20-compat', summary: true, cmd: [process.execPath, [join(root, 'scripts/node20-compat.mjs')]] },
  // The real-cluster tier: build (or reuse) kube-apiserver + etcd from Go
  // modules, then run every *.real.test.ts against them, one file at a time.
  { name: 'kube-build', cmd: ['bash', [join(root, 'tools/kube-apiserver/build.sh')]], captureLastLine: 'PROTEAN_KUBE_BIN_DIR' },
  {
    name: 'real',
    jest: true,
    cmd: ['node', [...nodeFlags, jestBin, '--runInBand', '--projects', ...realTierConfigs]],
  },
];

/** The browser step's Chromium: `{ env }` to run with, `{ skip }` with the reason, or `{ error }`. */
function prepareChromium() {
  const chromium = ensureChromium();
  if (chromium.error !== undefined) return { error: chromium.error };
  if (chromium.skip !== undefined) return { skip: `no Chromium: ${chromium.skip}` };
  const version = spawnSync(chromium.executable, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  console.log(`chromium: ${chromium.how}: ${chromium.executable} (${version})`);
  return { env: { PROTEAN_CHROMIUM: chromium.executable, PROTEAN_SCREENSHOT_DIR: join(resultsDir, 'screenshots') } };
}

const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const totals = { passed: 0, failed: 0, skipped: 0 };
const sharedEnv = {};
let ok = true;
const selected = steps.filter((step) => !only || only.includes(step.name));
const unknown = (only ?? []).filter((name) => !steps.some((step) => step.name === name));
if (unknown.length > 0) {
  console.log(`unknown step(s): ${unknown.join(', ')}; steps: ${steps.map((step) => step.name).join(', ')}`);
  process.exit(2);
}

// One Node binary for every 'node' step, fetched before the first of them.
let node24;
if (selected.some((step) => step.cmd[0] === 'node')) {
  const started = Date.now();
  try {
    const { bin, cached } = obtainNode(NODE_VERSION, cacheDir);
    node24 = bin;
    console.log(
      `node v${NODE_VERSION}: ${cached ? 'cached' : 'installed from the npm registry'} at ${bin} (${((Date.now() - started) / 1000).toFixed(1)}s)`,
    );
  } catch (err) {
    console.log(`node v${NODE_VERSION}: FAILED to obtain: ${err instanceof Error ? err.message : String(err)}`);
    console.log(`0 passed, 1 failed, 0 skipped`);
    process.exit(1);
  }
}
const node24Env = () => ({ PATH: `${dirname(node24)}${delimiter}${process.env.PATH ?? ''}` });

for (const step of selected) {
  const onNode24 = step.cmd[0] === 'node';
  const [bin, args] = onNode24 ? [node24, step.cmd[1]] : step.cmd;
  const outputFile = join(resultsDir, `${step.name}.json`);
  const fullArgs = step.jest ? [...args, '--json', `--outputFile=${outputFile}`] : step.summary ? [...args, '--json', outputFile] : args;
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
  const res = spawnSync(bin, fullArgs, {
    cwd: root,
    stdio: step.captureLastLine ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
    env: { ...process.env, ...sharedEnv, ...(onNode24 ? node24Env() : {}), ...prepared.env },
  });
  if (step.captureLastLine && res.status === 0) {
    const last = res.stdout.trim().split('\n').pop();
    sharedEnv[step.captureLastLine] = last;
    console.log(`${step.captureLastLine}=${last}`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
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
  console.log(`=== ${step.name}: ${passedStep ? 'ok' : `FAILED (exit ${res.status ?? res.signal})`} in ${seconds}s`);
  ok &&= passedStep;
}

console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(ok ? 0 : 1);
