#!/usr/bin/env node
// The root test command: type-check, lint, then every test tier, and a last
// line of totals across all packages ("N passed, N failed, N skipped").
// Usage: node scripts/test-all.mjs [--only=<step>[,<step>...]]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, '.test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

const jestBin = join(root, 'node_modules/jest/bin/jest.js');
const nodeFlags = ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning'];
const packagesWithTests = ['packages', 'examples']
  .flatMap((parent) => readdirSync(join(root, parent)).map((name) => join(parent, name)))
  .concat(['docs/guide'])
  .filter((dir) => existsSync(join(root, dir, 'jest.config.js')));

/** Each step is a check (must exit 0) or a Jest run whose counts are summed. */
const steps = [
  { name: 'typecheck', cmd: ['node', [join(root, 'node_modules/typescript/bin/tsc'), '-b']] },
  // Public API reports (etc/*.api.md): fails when a package's surface drifts.
  { name: 'api', cmd: ['node', [join(root, 'scripts/api-report.mjs')]] },
  { name: 'lint', cmd: ['node', [join(root, 'node_modules/eslint/bin/eslint.js'), '.']] },
  {
    name: 'unit',
    jest: true,
    cmd: ['node', [...nodeFlags, jestBin, '--maxWorkers=2', '--projects', ...packagesWithTests]],
  },
  // The published packages as an npm consumer gets them: pack, check each tarball, install, compile, run.
  { name: 'consumer', summary: true, cmd: ['node', [join(root, 'scripts/consumer-test.mjs')]] },
  // Node 24 + @kubernetes/client-node 2.x: the consumer test, a typecheck and every unit test there.
  { name: 'node24', summary: true, cmd: ['node', [join(root, 'scripts/node24-matrix.mjs')]] },
  // The real-cluster tier: build (or reuse) kube-apiserver + etcd from Go
  // modules, then run every *.real.test.ts against them, one file at a time.
  { name: 'kube-build', cmd: ['bash', [join(root, 'tools/kube-apiserver/build.sh')]], captureLastLine: 'PROTEAN_KUBE_BIN_DIR' },
  {
    name: 'real',
    jest: true,
    cmd: ['node', [...nodeFlags, jestBin, '--runInBand', '--config', join(root, 'packages/testing/jest.real.config.js')]],
  },
];

const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const totals = { passed: 0, failed: 0, skipped: 0 };
const sharedEnv = {};
let ok = true;

for (const step of steps) {
  if (only && !only.includes(step.name)) continue;
  const [bin, args] = step.cmd;
  const outputFile = join(resultsDir, `${step.name}.json`);
  const fullArgs = step.jest ? [...args, '--json', `--outputFile=${outputFile}`] : step.summary ? [...args, '--json', outputFile] : args;
  console.log(`\n=== ${step.name}: ${bin} ${fullArgs.join(' ')}`);
  const started = Date.now();
  const res = spawnSync(bin, fullArgs, {
    cwd: root,
    stdio: step.captureLastLine ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
    env: { ...process.env, ...sharedEnv },
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
