#!/usr/bin/env node
// The compatibility leg: Node 20.19+ with @kubernetes/client-node 1.4, the
// oldest runtime the packages support (the default runtime is Node 24 with
// client-node 2.x). What a Node 20 user runs: the consumer test there with
// `@kubernetes/client-node@1.4` installed, then, in a copy of the workspace
// whose catalog pins client-node 1.4 and @types/node 20, the typecheck and the
// unit tests whose code path differs on Node 20 (scripts/node20Tests.mjs: the
// list, each test's reason, and the check that every test and published module
// on a Node-sensitive surface is placed). The other unit tests are not run
// again: they run the same compiled code, on code paths Node 20 does not change
// (the typecheck against @types/node 20 catches a Node API Node 20 lacks);
// `--all-packages` runs every project's every test.
//
// Parts (`--parts`, default all, in this order): named-error, consumer,
// typecheck, unit (which runs typecheck first when no earlier part built the
// copy). typecheck and unit share the pinned copy: with `--workspace <dir>` it
// is made there once and kept, so the root test runner runs named-error,
// consumer and typecheck beside the Node 24 consumer test, then unit on its
// own (`--parts unit --workspace <same dir>`; the runner makes a new directory
// each run and removes it at the end).
//
// Node 20 is the Node running this script when it is 20.19+ (CI's system
// Node), else `--node-version` fetched from the npm registry (cached).
//
// Usage: node scripts/node20-compat.mjs [--json <file>] [--keep] [--parts <list>] [--skip-consumer] [--skip-unit]
//                                       [--all-packages] [--tarballs <dir>] [--workspace <dir>]
//                                       [--node-version 20.20.2] [--client-node 1.4.0] [--types-node 20.19.43]
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CheckList } from './consumer/CheckList.mjs';
import { copyWorkspace } from './consumer/copyWorkspace.mjs';
import { obtainNode } from './consumer/obtainNode.mjs';
import { run, tail } from './consumer/run.mjs';
import { checkNode20Tests, NODE20_TESTS, unitTestDirs } from './node20Tests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const PARTS = ['named-error', 'consumer', 'typecheck', 'unit'];
const { values: args } = parseArgs({
  options: {
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'skip-consumer': { type: 'boolean', default: false },
    'skip-unit': { type: 'boolean', default: false },
    'all-packages': { type: 'boolean', default: false },
    parts: { type: 'string', default: PARTS.join(',') },
    workspace: { type: 'string' },
    'node-version': { type: 'string', default: '20.20.2' },
    'client-node': { type: 'string', default: '1.4.0' },
    'types-node': { type: 'string', default: '20.19.43' },
    tarballs: { type: 'string' },
  },
});
const cacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'protean');
const work = mkdtempSync(join(tmpdir(), 'protean-node20-'));
const parts = new Set(args.parts.split(',').filter(Boolean));
const unknownParts = [...parts].filter((p) => !PARTS.includes(p));
if (unknownParts.length > 0) {
  console.log(`unknown part(s): ${unknownParts.join(', ')}; parts: ${PARTS.join(', ')}`);
  process.exit(2);
}
if (args['skip-consumer']) parts.delete('consumer');
if (args['skip-unit']) ['typecheck', 'unit'].forEach((p) => parts.delete(p));
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

  if (parts.has('named-error')) await checks.step('named error first', () => namedErrorFirst(node));
  if (parts.has('consumer')) await checks.step('consumer test', () => consumerTest(node));
  if (parts.has('typecheck') || parts.has('unit')) await pinnedWorkspace(node, env);
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

/** The pins of the workspace copy, as its marker file records them. */
function pins() {
  return { '@kubernetes/client-node': args['client-node'], '@types/node': args['types-node'], node: nodeVersion };
}

/**
 * The copy of the workspace pinned to client-node 1.4 and @types/node 20 (in `--workspace`, reused when it holds an
 * install of the same pins, else made there; without it, in this run's temp dir), then the parts that run in it.
 */
async function pinnedWorkspace(node, env) {
  const copy = args.workspace === undefined ? join(work, 'workspace') : resolve(args.workspace);
  const marker = join(copy, '.node20-pins.json');
  const ready = existsSync(marker) && readFileSync(marker, 'utf8') === JSON.stringify(pins());
  if (ready) console.log(`  the pinned workspace copy at ${copy} (made by an earlier part): ${JSON.stringify(pins())}`);
  const installed = ready || (await checks.step('copy workspace + pnpm install', () => copyAndInstall(copy, env)));
  if (installed) writeFileSync(marker, JSON.stringify(pins()));
  // The unit tests need typecheck's build (tests that run dist/, packages resolved through their exports): typecheck
  // runs first unless an earlier part did it in this copy.
  const built = join(copy, '.node20-typechecked');
  const typecheckFirst = parts.has('typecheck') || (parts.has('unit') && !existsSync(built));
  for (const part of ['typecheck', 'unit'].filter((p) => (p === 'typecheck' ? typecheckFirst : parts.has(p)))) {
    if (!installed) checks.skip(part === 'unit' ? 'unit tests' : part, 'install failed');
    else if (part === 'typecheck') {
      if (await checks.step('typecheck', () => typecheck(node, copy, env))) writeFileSync(built, '');
    } else await checks.step('unit tests', () => unitTests(node, copy, env));
  }
}

function copyAndInstall(copy, env) {
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy, { recursive: true });
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
}

/** Type-level differences of client-node 1.4 and Node 20's typings show up here, not in the SWC-compiled tests. */
function typecheck(node, copy, env) {
  const name = `tsc -b of the workspace against client-node ${args['client-node']}`;
  const res = run(node, [join(copy, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: copy, env });
  if (res.ok) checks.pass(name);
  else checks.fail(name, tail(res.output, 40));
  return res.ok;
}

/** The unit tests of NODE20_TESTS (after checking that list is whole), or with --all-packages every one. */
function unitTests(node, copy, env) {
  const all = unitTestDirs(copy);
  let tests;
  if (!args['all-packages']) {
    const selection = checkNode20Tests(copy);
    const name = 'every unit test and published module on a Node-sensitive surface is placed (scripts/node20Tests.mjs)';
    if (selection.problems.length === 0) checks.pass(name);
    else checks.fail(name, selection.problems.join('\n'));
    tests = selection.tests.map((file) => join(copy, file));
  }
  const projects = tests === undefined ? all : all.filter((dir) => tests.some((file) => file.startsWith(join(copy, dir, 'src') + '/')));
  console.log(
    tests === undefined
      ? `  unit tests of ${projects.join(', ')}`
      : `  the ${tests.length} unit-test files whose code path differs on Node 20 (scripts/node20Tests.mjs), in ${projects.join(', ')}`,
  );
  for (const file of tests ?? []) console.log(`    ${file.slice(copy.length + 1)}: ${NODE20_TESTS[file.slice(copy.length + 1)].why}`);
  const out = join(work, 'jest.json');
  const jestArgs = ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', join(copy, 'node_modules/jest/bin/jest.js')];
  // One pattern matching exactly those files' paths.
  const only = tests === undefined ? [] : ['--testPathPatterns', `^(?:${tests.map(escapeRegExp).join('|')})$`];
  // Longest files first (scripts/longestFirstSequencer.mjs), as the root test runner's Jest steps.
  const sequencer = `--testSequencer=${join(root, 'scripts/longestFirstSequencer.mjs')}`;
  const res = run(node, [...jestArgs, '--maxWorkers=2', sequencer, ...only, '--json', `--outputFile=${out}`, '--projects', ...projects], {
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
    const failed = suite.assertionResults
      .filter((a) => a.status === 'failed')
      .map((a) => `${file} > ${a.fullName}: ${(a.failureMessages[0] ?? '').split('\n')[0]}`);
    return failed.length > 0 || suite.status !== 'failed'
      ? failed
      : [`${file}: ${(suite.message ?? '').trim().split('\n').slice(0, 3).join(' ')}`];
  });
  const summary = `${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped in ${r.numTotalTestSuites} suites on node ${nodeVersion} + client-node ${args['client-node']}`;
  checks.details.push({ name: 'unit tests', status: res.ok ? 'passed' : 'failed', message: summary, failures, counted: true });
  console.log(`  unit tests: ${summary}`);
  for (const f of failures) console.log(`  FAILED ${f}`);
  if (tests !== undefined && r.numTotalTestSuites !== tests.length)
    checks.fail('every selected unit-test file ran', `${r.numTotalTestSuites} suites ran, ${tests.length} selected`);
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
