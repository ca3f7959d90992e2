#!/usr/bin/env node
// The compatibility leg: Node 20.19+ with @kubernetes/client-node 1.4, the
// oldest runtime the packages support (the default runtime is Node 24 with
// client-node 2.x). What a Node 20 user runs: the consumer test there with
// `@kubernetes/client-node@1.4` installed, then, in a copy of the workspace
// whose catalog pins client-node 1.4 and @types/node 20, the typecheck and the
// unit tests that load @kubernetes/client-node, themselves or through any
// workspace module they import (scripts/clientNodeTests.mjs; the others never
// touch client-node, so they run no client-node 1.4 code path; `--all-packages`
// runs every project's every test).
//
// Node 20 is the Node running this script when it is 20.19+ (CI's system
// Node), else `--node-version` fetched from the npm registry (cached).
//
// Usage: node scripts/node20-compat.mjs [--json <file>] [--keep] [--skip-consumer] [--skip-unit] [--all-packages] [--tarballs <dir>]
//                                       [--node-version 20.20.2] [--client-node 1.4.0] [--types-node 20.19.43]
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { testsLoadingClientNode } from './clientNodeTests.mjs';
import { CheckList } from './consumer/CheckList.mjs';
import { copyWorkspace } from './consumer/copyWorkspace.mjs';
import { obtainNode } from './consumer/obtainNode.mjs';
import { run, tail } from './consumer/run.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'skip-consumer': { type: 'boolean', default: false },
    'skip-unit': { type: 'boolean', default: false },
    'all-packages': { type: 'boolean', default: false },
    'node-version': { type: 'string', default: '20.20.2' },
    'client-node': { type: 'string', default: '1.4.0' },
    'types-node': { type: 'string', default: '20.19.43' },
    tarballs: { type: 'string' },
  },
});
const cacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'protean');
const work = mkdtempSync(join(tmpdir(), 'protean-node20-'));
const checks = new CheckList();
/** Jest's counts and the consumer test's counts, added to the checks' own. */
const extra = { passed: 0, failed: 0, skipped: 0 };
const started = Date.now();
/** The version of the Node the leg runs on, once known. */
let nodeVersion = args['node-version'];
process.on('SIGINT', () => {
  if (!args.keep) rmSync(work, { recursive: true, force: true });
  process.exit(130);
});

try {
  await main();
} catch (err) {
  checks.fail('node20 compat ran to the end', err instanceof Error ? (err.stack ?? err.message) : String(err));
} finally {
  if (args.keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
summarize();

async function main() {
  const node = await checks.step('node 20', () => {
    const [major, minor] = process.versions.node.split('.').map(Number);
    if (major === 20 && minor >= 19) {
      checks.pass(`node v${process.versions.node} binary`, `the running node, ${process.execPath}`);
      return process.execPath;
    }
    const version = args['node-version'];
    try {
      const { bin, cached } = obtainNode(version, cacheDir);
      checks.pass(`node v${version} binary`, `${cached ? 'cached' : 'installed'} at ${bin}`);
      return bin;
    } catch (err) {
      checks.fail(`node v${version} binary`, err instanceof Error ? err.message : String(err));
      return undefined;
    }
  });
  if (node === undefined) return;
  nodeVersion = run(node, ['-p', 'process.versions.node']).stdout.trim();
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };

  await checks.step('named error first', () => namedErrorFirst(node));

  if (args['skip-consumer']) checks.skip('consumer test', '--skip-consumer');
  else await checks.step('consumer test', () => consumerTest(node));

  if (args['skip-unit']) checks.skip('unit tests', '--skip-unit');
  else await unitTests(node, env);
}

/**
 * Node 20 with the workspace's @kubernetes/client-node 2.x, as a user who installed the default gets it: every
 * package that loads client-node (itself, or through a package it imports) must throw ClientNodeRuntimeError,
 * which names the fix, before undici fails with a bare TypeError.
 */
function namedErrorFirst(node) {
  const from = join(root, 'packages/integration-tests');
  for (const pkg of ['@protean/in-memory-apiserver', '@protean/envtest', '@protean/testing', '@protean/client']) {
    const script = `import(${JSON.stringify(pkg)}).then(() => console.log('loaded'), (e) => console.log(e.name))`;
    const res = run(node, ['--input-type=module', '-e', script], { cwd: from });
    const got = res.stdout.trim();
    const name = `node ${nodeVersion} + client-node 2.x: importing ${pkg} throws ClientNodeRuntimeError first`;
    if (got === 'ClientNodeRuntimeError') checks.pass(name);
    else checks.fail(name, `${got}\n${tail(res.stdout + res.stderr, 10)}`);
  }
}

/** The consumer test as a Node 20 user runs it: `npm install ... @kubernetes/client-node@1.4 ...`. */
function consumerTest(node) {
  const out = join(work, 'consumer.json');
  const spec = args['client-node'].split('.').slice(0, 2).join('.');
  // The consumer step's tarballs of this same tree, when it left them (`--tarballs`); else it packs.
  const reuse = args.tarballs !== undefined && existsSync(args.tarballs) ? ['--tarballs', args.tarballs] : [];
  const res = run(node, [join(root, 'scripts/consumer-test.mjs'), '--node', node, '--client-node', spec, '--json', out, ...reuse], {
    cwd: root,
    inherit: true,
    timeoutMs: 15 * 60_000,
  });
  if (!existsSync(out)) return checks.fail('consumer test', `no result file (exit ${res.status ?? res.signal})`);
  const r = JSON.parse(readFileSync(out, 'utf8'));
  extra.passed += r.passed;
  extra.failed += r.failed;
  extra.skipped += r.skipped;
  for (const d of r.details.filter((x) => x.status === 'failed')) console.log(`  consumer FAILED ${d.name}`);
  for (const w of r.warnings) checks.warnings.push(`consumer: ${w}`);
  checks.details.push(...r.details.map((d) => ({ ...d, name: `consumer: ${d.name}`, counted: true })));
  console.log(`  consumer test on node ${nodeVersion} + client-node ${spec}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
}

async function unitTests(node, env) {
  const copy = join(work, 'workspace');
  const installed = await checks.step('copy workspace + pnpm install', () => {
    const files = copyWorkspace(root, copy);
    const yamlPath = join(copy, 'pnpm-workspace.yaml');
    const yaml = readFileSync(yamlPath, 'utf8');
    let pinned = yaml;
    for (const [name, version] of [
      ['@kubernetes/client-node', args['client-node']],
      ['@types/node', args['types-node']],
    ]) {
      const entry = new RegExp(`^(\\s*'${name.replace('/', '\\/')}':\\s*)\\S+\\s*$`, 'm');
      if (!entry.test(pinned)) {
        checks.fail(`catalog pins ${name} ${version}`, `no catalog entry for ${name} in pnpm-workspace.yaml`);
        return false;
      }
      pinned = pinned.replace(entry, `$1${version}`);
    }
    writeFileSync(yamlPath, pinned);
    console.log(
      `  copied ${files} files to ${copy}; catalog @kubernetes/client-node -> ${args['client-node']}, @types/node -> ${args['types-node']}`,
    );
    const res = run('pnpm', ['install', '--no-frozen-lockfile', '--prefer-offline', '--reporter=append-only'], {
      cwd: copy,
      env,
      timeoutMs: 15 * 60_000,
    });
    if (!res.ok) {
      checks.fail(`pnpm install on node ${nodeVersion} with client-node ${args['client-node']}`, tail(res.output, 40));
      return false;
    }
    const resolved = readdirSync(join(copy, 'node_modules/.pnpm')).filter((d) => d.startsWith('@kubernetes+client-node@'));
    const wrong = resolved.filter((d) => !d.startsWith(`@kubernetes+client-node@${args['client-node']}`));
    if (wrong.length > 0 || resolved.length === 0) {
      checks.fail(
        `pnpm install on node ${nodeVersion} with client-node ${args['client-node']}`,
        `resolved: ${resolved.join(', ') || 'none'}`,
      );
      return false;
    }
    checks.pass(`pnpm install on node ${nodeVersion} with client-node ${args['client-node']}`, `${res.seconds.toFixed(1)}s`);
    return true;
  });
  if (!installed) return checks.skip('unit tests', 'install failed');

  // Type-level differences of client-node 1.4 and Node 20's typings show up here, not in the SWC-compiled tests.
  await checks.step('typecheck', () => {
    const name = `tsc -b of the workspace against client-node ${args['client-node']}`;
    const res = run(node, [join(copy, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: copy, env });
    if (res.ok) checks.pass(name);
    else checks.fail(name, tail(res.output, 40));
  });

  await checks.step('unit tests', () => {
    const all = ['packages', 'examples']
      .flatMap((parent) => (existsSync(join(copy, parent)) ? readdirSync(join(copy, parent)).map((name) => `${parent}/${name}`) : []))
      .concat(['docs/guide'])
      .filter((dir) => existsSync(join(copy, dir, 'jest.config.js')));
    const tests = args['all-packages'] ? undefined : testsLoadingClientNode(copy, all);
    const projects = tests === undefined ? all : all.filter((dir) => tests.some((file) => file.startsWith(join(copy, dir, 'src') + sep)));
    const left = all.filter((dir) => !projects.includes(dir));
    console.log(
      tests === undefined
        ? `  unit tests of ${projects.join(', ')}`
        : `  the ${tests.length} unit-test files that load client-node, in ${projects.join(', ')}${left.length > 0 ? ` (none in ${left.join(', ')})` : ''}`,
    );
    const out = join(work, 'jest.json');
    const jestArgs = ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', join(copy, 'node_modules/jest/bin/jest.js')];
    // One pattern matching exactly those files' paths.
    const only = tests === undefined ? [] : ['--testPathPatterns', `^(?:${tests.map(escapeRegExp).join('|')})$`];
    const res = run(node, [...jestArgs, '--maxWorkers=2', ...only, '--json', `--outputFile=${out}`, '--projects', ...projects], {
      cwd: copy,
      env,
      inherit: true,
      timeoutMs: 30 * 60_000,
    });
    if (!existsSync(out)) return checks.fail('unit tests', `jest wrote no result (exit ${res.status ?? res.signal})`);
    const r = JSON.parse(readFileSync(out, 'utf8'));
    extra.passed += r.numPassedTests;
    extra.failed += r.numFailedTests;
    extra.skipped += r.numPendingTests + r.numTodoTests;
    // A suite that fails to load has no failed tests; count it as one, as the root runner does.
    if (!res.ok && r.numFailedTests === 0) extra.failed += Math.max(1, r.numFailedTestSuites);
    const failures = r.testResults.flatMap((suite) => {
      const file = suite.name.slice(copy.length + 1);
      const tests = suite.assertionResults
        .filter((a) => a.status === 'failed')
        .map((a) => `${file} > ${a.fullName}: ${(a.failureMessages[0] ?? '').split('\n')[0]}`);
      return tests.length > 0 || suite.status !== 'failed'
        ? tests
        : [`${file}: ${(suite.message ?? '').trim().split('\n').slice(0, 3).join(' ')}`];
    });
    const summary = `${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped in ${r.numTotalTestSuites} suites on node ${nodeVersion} + client-node ${args['client-node']}`;
    checks.details.push({ name: 'unit tests', status: res.ok ? 'passed' : 'failed', message: summary, failures, counted: true });
    console.log(`  unit tests: ${summary}`);
    for (const f of failures) console.log(`  FAILED ${f}`);
  });
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function summarize() {
  const own = checks.details.filter((d) => !d.counted);
  const count = (s) => own.filter((d) => d.status === s).length + extra[s];
  const totals = { passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
  // The unit run can fail with all its tests passed (a suite that did not load); that must fail the leg.
  const unitFailed = checks.details.some((d) => d.name === 'unit tests' && d.status === 'failed');
  if (unitFailed && totals.failed === 0) totals.failed = 1;
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `\nnode20 compat timings: ${checks.timings.map((t) => `${t.step} ${t.seconds.toFixed(1)}s`).join(', ')}; total ${seconds.toFixed(1)}s`,
  );
  if (args.json !== undefined) {
    writeFileSync(
      resolve(args.json),
      `${JSON.stringify({ ...totals, details: checks.details, warnings: checks.warnings, timings: checks.timings, seconds }, null, 2)}\n`,
    );
  }
  console.log(`node20 compat: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exitCode = totals.failed === 0 ? 0 : 1;
}
