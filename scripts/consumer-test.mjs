#!/usr/bin/env node
// The consumer test: packs every publishable package the way `pnpm pack:all`
// does (each built by its prepack, no private package), checks each tarball,
// installs the tarballs into a throwaway npm project outside the workspace
// with the README's install commands as written (the @protean/* names
// replaced by the tarballs), compiles and runs a small controller against
// the published types, and runs its Jest test set up exactly as
// packages/testing/README.md documents.
//
// Usage: node scripts/consumer-test.mjs [--node <node binary>] [--client-node <version>]
//                                        [--json <file>] [--keep] [--save-tarballs <dir>] [--tarballs <dir>] [--pack-only]
//   --node         Node binary for npm install, tsc, the fixture and Jest (default: this one)
//   --client-node  install `@kubernetes/client-node@<version>` instead of the README's bare
//                  `@kubernetes/client-node` (what a Node 20 user does: --client-node 1.4)
//   --json         write { passed, failed, skipped, details, ... } for the root test runner
//   --keep         keep the temp dir (printed) for inspection
//   --save-tarballs copy the packed tarballs into <dir> (the root test runner hands them to the Node 20 leg)
//   --tarballs     use the tarballs in <dir> (packed from this same tree) instead of packing again
//                  (when <dir> does not exist, it packs as without it)
//   --pack-only    pack (and check what is packed), save the tarballs (--save-tarballs) and stop: the root test
//                  runner's `pack` step, whose tarballs the Node 24 and Node 20 consumer tests then share
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CheckList } from './consumer/CheckList.mjs';
import { createProteanChecks, createProteanOnOlderNode, GENERATOR } from './consumer/createProtean.mjs';
import { findCopies } from './consumer/findCopies.mjs';
import { inspectTarball } from './consumer/inspectTarball.mjs';
import { npmInstallCommands, sectionCodeBlocks } from './consumer/markdownSection.mjs';
import { packPackages, workspacePackages } from './consumer/packWorkspace.mjs';
import { run, tail } from './consumer/run.mjs';
import { testSupportInTarball } from './consumer/testSupport.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixtureDir = join(root, 'scripts/consumer/fixture');
const CLIENT_NODE = '@kubernetes/client-node';
const JEST_SECTION = 'Jest setup (native ESM + TypeScript)';
const { values: args } = parseArgs({
  options: {
    node: { type: 'string', default: process.execPath },
    'client-node': { type: 'string' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'save-tarballs': { type: 'string' },
    tarballs: { type: 'string' },
    'pack-only': { type: 'boolean', default: false },
  },
});
// Tarballs packed earlier from this same tree, when there are any.
const reuseFrom = args.tarballs !== undefined && existsSync(resolve(args.tarballs)) ? resolve(args.tarballs) : undefined;
const nodeBin = resolve(args.node);
const checks = new CheckList();
const work = mkdtempSync(join(tmpdir(), 'protean-consumer-'));
const tarballDir = join(work, 'tarballs');
const appDir = join(work, 'app');
// npm, and anything it spawns through `#!/usr/bin/env node`, runs on the chosen Node.
const env = { ...process.env, PATH: `${dirname(nodeBin)}${delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };
const started = Date.now();
let tarballs = [];
/** The tarballs of the libraries an app installs: every one but the generator's. */
let libraries = [];
let createTimings = [];

const cleanup = () => {
  if (args.keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

try {
  await main();
} catch (err) {
  checks.fail('consumer test ran to the end', err instanceof Error ? (err.stack ?? err.message) : String(err));
} finally {
  cleanup();
}
summarize();

async function main() {
  const nodeVersion = run(nodeBin, ['--version']).stdout.trim();
  console.log(`consumer test: node ${nodeVersion} (${nodeBin}), client-node ${args['client-node'] ?? 'as published'}, temp ${work}`);
  const workspace = workspacePackages(root);
  const publishable = workspace.filter((p) => !p.private);
  const privateNames = new Set(workspace.filter((p) => p.private).map((p) => p.name));

  // The documented pack path (`pnpm pack:all`): the publishable packages only, each built by its prepack.
  const packed = await checks.step('pack', () => {
    const noPrepack = publishable.filter((p) => !/\btsc -b\b/.test(readManifest(p.dir).scripts?.prepack ?? '')).map((p) => p.name);
    checks.expectNone('every published package builds before it is packed (scripts.prepack runs tsc -b)', noPrepack);
    if (args.tarballs !== undefined && reuseFrom === undefined) console.log(`  no ${args.tarballs}: packing here`);
    const made =
      reuseFrom !== undefined
        ? reusedTarballs(publishable, reuseFrom)
        : packPackages(publishable, tarballDir, ({ pkg, ok, file, output }) => {
            if (ok) checks.pass(`pnpm pack ${pkg.name} (prepack builds it)`, basename(file));
            else checks.fail(`pnpm pack ${pkg.name} (prepack builds it)`, output);
          });
    // From each tarball's listing: no *.test.*, *.testkit.*, test-helpers/ or __tests__/ file is published.
    for (const { pkg, file } of made)
      checks.expectNone(`${pkg.name}: no test code or test support in ${basename(file)}`, testSupportInTarball(file));
    if (reuseFrom === undefined && args['save-tarballs'] !== undefined) {
      mkdirSync(args['save-tarballs'], { recursive: true });
      for (const { file } of made) copyFileSync(file, join(args['save-tarballs'], basename(file)));
    }
    return made;
  });
  if (args['pack-only']) return;
  if (packed.length !== publishable.length) return skipRest(`${publishable.length - packed.length} packages did not pack`);

  await checks.step('inspect tarballs', () => {
    const files = readdirSync(tarballDir).filter((f) => f.endsWith('.tgz'));
    tarballs = packed.map(({ pkg, file }) => ({ ...inspectTarball(file, join(work, 'extract'), checks, root, pkg.dir), path: file }));
    printTable(tarballs);
    libraries = tarballs.filter((t) => t.name !== GENERATOR);
    const names = tarballs.map((t) => t.name);
    checks.expectNone('no private package is packed', [
      ...names.filter((n) => privateNames.has(n)).map((n) => `${n} is private`),
      ...tarballs.filter((t) => t.manifest.private === true).map((t) => `${t.name} has "private": true`),
      ...(files.length === tarballs.length ? [] : [`${files.length} tarballs in ${tarballDir}, ${tarballs.length} expected`]),
    ]);
    checks.expectNone(
      'every publishable package is packed once',
      publishable
        .filter((p) => names.filter((n) => n === p.name).length !== 1)
        .map((p) => `${p.name}: ${names.filter((n) => n === p.name).length} tarballs`),
    );
  });

  agreedPeers(libraries);
  const installed = await checks.step('install', () => install());
  if (installed === undefined) return skipRest('npm install failed');

  await checks.step('envtest bin', () => envtestBin());

  const compiled = await checks.step('compile', () => compile());
  if (!compiled) return skipRest('compile failed');

  await checks.step('run', () => {
    const res = run(nodeBin, [join(appDir, 'dist/controller.js')], { cwd: appDir, env, timeoutMs: 120_000 });
    let reported = 0;
    for (const line of res.stdout.split('\n')) {
      const m = /^(ok|not ok) - (.*)$/.exec(line);
      if (m === null) continue;
      reported += 1;
      const [name, ...why] = m[2].split(': ');
      if (m[1] === 'ok') checks.pass(`fixture: ${m[2]}`);
      else checks.fail(`fixture: ${name}`, why.join(': '));
    }
    if (res.ok && reported > 0) checks.pass('the fixture exits 0 by itself after shutdown');
    else
      checks.fail(
        'the fixture exits 0 by itself after shutdown',
        `exit ${res.status ?? res.signal}, ${reported} checks reported\n${tail(res.output, 40)}`,
      );
  });

  await checks.step('jest', () => jestTest());

  // A generated project targets Node >= 24 (engines) and client-node 2.x: on an older Node the generator must still
  // run and say so; the project itself is installed and tested on Node 24.
  const major = Number(nodeVersion.replace(/^v/, '').split('.')[0]);
  if (major < 24) await checks.step('create-protean', () => createProteanOnOlderNode({ checks, tarballs, work, env, nodeVersion }));
  else createTimings = await checks.step('create-protean', () => createProteanChecks({ checks, tarballs, work, env }));
}

/**
 * Runs the installed `@protean/envtest` bin the way its README says, with
 * `build --print-dir` (never builds): it must print the same cache directory
 * as the repository's tools/kube-apiserver/build.sh, so binaries built in the
 * repository are found by the package and the other way round. When that
 * directory has the binaries, `build` itself must print it at once (the
 * warm path).
 */
function envtestBin() {
  const script = join(appDir, 'node_modules/@protean/envtest/kube/build.sh');
  checks.expectNone('@protean/envtest ships kube/build.sh and its Go module', existsSync(script) ? [] : [`${script} missing`]);
  const printDirs = () => [
    run('bash', [join(root, 'tools/kube-apiserver/build.sh'), '--print-dir'], { env }),
    run('npx', ['--no-install', 'protean-envtest', 'build', '--print-dir'], { cwd: appDir, env }),
  ];
  let [repo, installed] = printDirs();
  // A build running meanwhile (the root test runner builds in parallel) may finish between the two calls.
  if (repo.status !== installed.status) [repo, installed] = printDirs();
  const lastLine = (text) => text.trim().split('\n').at(-1) ?? '';
  const name = 'npx protean-envtest build --print-dir prints the same cache directory as tools/kube-apiserver/build.sh';
  if (![0, 3].includes(repo.status ?? -1))
    return checks.fail(name, `the repository's build.sh --print-dir: exit ${repo.status}\n${tail(repo.output)}`);
  if (installed.status !== repo.status || lastLine(installed.stdout) !== lastLine(repo.stdout))
    return checks.fail(
      name,
      `installed: exit ${installed.status ?? installed.signal}, ${lastLine(installed.stdout)}; repository: exit ${repo.status}, ${lastLine(repo.stdout)}\n${tail(installed.output)}`,
    );
  const built = repo.status === 0;
  checks.pass(name, `${lastLine(repo.stdout)}, ${built ? 'built' : 'not built yet'}`);
  if (!built) return;
  const build = run('npx', ['--no-install', 'protean-envtest', 'build'], { cwd: appDir, env, timeoutMs: 60_000 });
  if (build.ok && lastLine(build.stdout) === lastLine(repo.stdout))
    checks.pass('npx protean-envtest build reuses the cached binaries', `${build.seconds.toFixed(1)}s`);
  else checks.fail('npx protean-envtest build reuses the cached binaries', `exit ${build.status ?? build.signal}\n${tail(build.output)}`);
}

/**
 * Runs the fixture's Jest tests with `npm test`, configured by the
 * package.json and jest.config.js blocks of packages/testing/README.md
 * (written in by install()). Each Jest test counts as one check.
 */
function jestTest() {
  const out = join(work, 'jest.json');
  const res = run('npm', ['test', '--', '--json', `--outputFile=${out}`], { cwd: appDir, env, timeoutMs: 5 * 60_000 });
  if (!existsSync(out)) return checks.fail('jest: npm test ran', `no result (exit ${res.status ?? res.signal})\n${tail(res.output, 40)}`);
  const r = JSON.parse(readFileSync(out, 'utf8'));
  for (const suite of r.testResults) {
    const file = relative(appDir, suite.name);
    if (suite.status === 'failed' && suite.assertionResults.length === 0)
      checks.fail(`jest: ${file} loads`, (suite.message ?? '').trim().split('\n').slice(0, 8).join('\n'));
    for (const a of suite.assertionResults) {
      if (a.status === 'passed') checks.pass(`jest: ${file} > ${a.fullName}`);
      else if (a.status === 'failed')
        checks.fail(`jest: ${file} > ${a.fullName}`, (a.failureMessages[0] ?? '').split('\n').slice(0, 6).join('\n'));
      else checks.skip(`jest: ${file} > ${a.fullName}`, a.status);
    }
  }
  if (r.numTotalTests === 0) checks.fail('jest: found the fixture tests', tail(res.output, 20));
  if (!res.ok && r.numFailedTests === 0) checks.fail('jest: npm test exits 0', `exit ${res.status ?? res.signal}\n${tail(res.output, 20)}`);
}

/**
 * Compiles the fixture with the consumer's tsc. Errors in the fixture or in
 * a published @protean .d.ts fail; errors inside other packages' typings
 * (seen only because skipLibCheck is off) are warnings, since tsc still
 * emits and they are not ours to fix.
 */
function compile() {
  const name = 'the fixture and the published @protean .d.ts type-check (strict, skipLibCheck: false)';
  const res = run(nodeBin, [join(appDir, 'node_modules/typescript/bin/tsc'), '-p', appDir], { cwd: appDir, env });
  const errors = res.stdout.split('\n').filter((l) => / error TS\d+:/.test(l));
  const thirdParty = errors.filter((l) => /^node_modules\//.test(l) && !/^node_modules\/@protean\//.test(l));
  const ours = errors.filter((l) => !thirdParty.includes(l));
  if (thirdParty.length > 0) {
    checks.warn(
      `${thirdParty.length} type errors in third-party typings (skipLibCheck: false): ${[...new Set(thirdParty.map((l) => l.replace(/\(\d+,\d+\)/, '').slice(0, 160)))].join(' | ')}`,
    );
  }
  if (res.ok || (ours.length === 0 && errors.length > 0)) checks.pass(name);
  else checks.fail(name, ours.length > 0 ? ours.join('\n') : tail(res.output, 40));
  return existsSync(join(appDir, 'dist/controller.js')) && ours.length === 0;
}

/**
 * Installs the tarballs the way the README tells a user to: each `npm install`
 * command of its "Install" section as written, the @protean/* names replaced
 * by the tarballs (and a bare `@kubernetes/client-node` by
 * `@kubernetes/client-node@<--client-node>` when given), then the Jest setup
 * of packages/testing/README.md. Returns the commands run, or undefined when
 * an install failed.
 */
function install() {
  mkdirSync(appDir, { recursive: true });
  cpSync(join(fixtureDir, 'src'), join(appDir, 'src'), { recursive: true });
  copyFileSync(join(fixtureDir, 'tsconfig.json'), join(appDir, 'tsconfig.json'));
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const testingReadme = readFileSync(join(root, 'packages/testing/README.md'), 'utf8');
  const readmeCommands = npmInstallCommands(readme, 'Install');
  const words = readmeCommands.flat();
  checks.expectNone(
    `the README's install commands name ${CLIENT_NODE} without a version`,
    words.includes(CLIENT_NODE) ? [] : [`found ${words.filter((w) => w.startsWith(CLIENT_NODE)).join(', ') || 'no client-node'}`],
  );
  const missing = libraries.filter((t) => !words.includes(t.name)).map((t) => `${t.name} is not in the README's install commands`);
  checks.expectNone('the README installs every published package', missing);
  // A library the app installs (and imports) itself must be a peer, or the app can end up with two copies.
  const appOwned = new Set(words.filter((w) => !w.startsWith('-')).map((w) => /^(@[^/@]+\/[^@]+|[^@]+)/.exec(w)?.[1] ?? w));
  const shipped = libraries.flatMap((t) =>
    Object.entries(t.manifest.dependencies ?? {})
      .filter(([dep]) => appOwned.has(dep) && !dep.startsWith('@protean/'))
      .map(([dep, range]) => `${t.name} has ${dep} ${range} in dependencies`),
  );
  checks.expectNone('no package lists a library the app installs itself in dependencies (a peer instead)', shipped);
  // An exact pin gives an app that imports the same library at another version a second copy.
  const pinned = tarballs.flatMap((t) =>
    Object.entries(t.manifest.dependencies ?? {})
      .filter(([, range]) => /^\d+\.\d+\.\d+(-\S*)?$/.test(range))
      .map(([dep, range]) => `${t.name} pins ${dep} ${range}`),
  );
  checks.expectNone('published dependencies are ranges, not exact versions', pinned);

  // The app's own tooling; the README's commands add everything else.
  const catalog = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const catalogTypesNode = /'@types\/node':\s*(\S+)/.exec(catalog)?.[1];
  const nodeMajor = run(nodeBin, ['-p', 'process.versions.node.split(".")[0]']).stdout.trim();
  const typesNode = catalogTypesNode?.startsWith(`${nodeMajor}.`) ? catalogTypesNode : `^${nodeMajor}`;
  const jestBlocks = sectionCodeBlocks(testingReadme, JEST_SECTION);
  const jestManifest = JSON.parse(jestBlocks.find((b) => b.lang === 'json')?.text ?? 'null');
  const jestConfig = jestBlocks.find((b) => b.lang === 'js')?.text;
  if (jestManifest === null || jestConfig === undefined)
    throw new Error(`packages/testing/README.md "${JEST_SECTION}" lacks its json or js block`);
  const manifest = {
    name: 'protean-consumer-fixture',
    version: '0.0.0',
    private: true,
    ...jestManifest,
    devDependencies: { typescript: '5.9.3', '@types/node': typesNode },
  };
  writeFileSync(join(appDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(appDir, 'jest.config.js'), jestConfig);

  const byName = new Map(tarballs.map((t) => [t.name, t.path]));
  const substitute = (word) => {
    if (byName.has(word)) return byName.get(word);
    if (word === CLIENT_NODE && args['client-node'] !== undefined) return `${CLIENT_NODE}@${args['client-node']}`;
    return word;
  };
  const commands = [...readmeCommands.map((c) => c.map(substitute)), ...npmInstallCommands(testingReadme, JEST_SECTION)];
  for (const command of commands) {
    const shown = `npm ${command.map((w) => (w.endsWith('.tgz') ? basename(w) : w)).join(' ')}`;
    const res = run('npm', [...command, '--no-audit', '--no-fund', '--prefer-offline'], { cwd: appDir, env });
    if (!res.ok) {
      checks.fail(`${shown}`, tail(res.output, 40));
      return undefined;
    }
    checks.pass(shown, `${res.seconds.toFixed(1)}s`);
  }
  const installed = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8'));
  checks.expectNone('the app has no npm overrides', installed.overrides === undefined ? [] : [JSON.stringify(installed.overrides)]);
  console.log(`  dependencies: ${JSON.stringify(installed.dependencies)}`);
  console.log(`  devDependencies: ${JSON.stringify(installed.devDependencies)}`);

  const ls = run('npm', ['ls', '--all', '--json'], { cwd: appDir, env });
  let problems;
  try {
    problems = JSON.parse(ls.stdout).problems ?? [];
  } catch {
    problems = [`npm ls output is not JSON: ${tail(ls.output, 5)}`];
  }
  checks.expectNone('npm ls --all reports no missing, invalid or extraneous packages', problems);

  // What `npm ls` shows a user: every path to client-node, all deduped onto one copy.
  const lsClientNode = run('npm', ['ls', CLIENT_NODE], { cwd: appDir, env });
  const lsPaths = run('npm', ['ls', CLIENT_NODE, '--all', '--parseable'], { cwd: appDir, env });
  const lsCopies = [...new Set(lsPaths.stdout.split('\n').filter(Boolean))].map((p) => relative(appDir, p));
  console.log(`  npm ls ${CLIENT_NODE}:\n${lsClientNode.stdout.trimEnd().replace(/^/gm, '    ')}`);
  if (lsClientNode.ok && lsCopies.length === 1)
    checks.pass(`npm ls ${CLIENT_NODE} shows one copy`, lsClientNode.stdout.trim().replace(/\n\s*/g, ' | '));
  else
    checks.fail(
      `npm ls ${CLIENT_NODE} shows one copy`,
      `${lsCopies.length} copies (${lsCopies.join(', ')}), exit ${lsClientNode.status}\n${lsClientNode.output}`,
    );

  const expectOne = (name, expected) => {
    const copies = findCopies(appDir, name);
    const where = copies.map((c) => `${c.location}@${c.version}`).join(', ');
    if (copies.length !== 1) return checks.fail(`exactly one copy of ${name}`, `${copies.length} copies: ${where || 'none'}`);
    if (expected !== undefined && !expected.test(copies[0].version))
      return checks.fail(`exactly one copy of ${name}`, `${where}, expected ${expected}`);
    checks.pass(`exactly one copy of ${name}`, where);
  };
  expectOne('inversify');
  expectOne('reflect-metadata');
  expectOne('prom-client');
  for (const t of libraries) expectOne(t.name, new RegExp(`^${t.version.replace(/\./g, '\\.')}$`));
  const wanted = args['client-node'];
  expectOne(CLIENT_NODE, wanted === undefined ? undefined : new RegExp(`^${wanted.replace(/\./g, '\\.')}(\\.|$)`));
  return commands;
}

/** The inversify/reflect-metadata ranges every package's peerDependencies give; checked to agree. */
function agreedPeers(list) {
  const peers = {};
  const conflicts = [];
  const exactPins = {};
  for (const t of list) {
    for (const [dep, range] of Object.entries(t.manifest.peerDependencies ?? {})) {
      if (dep.startsWith('@protean/')) continue;
      if (peers[dep] !== undefined && peers[dep] !== range) conflicts.push(`${t.name} wants ${dep} ${range}, another ${peers[dep]}`);
      peers[dep] ??= range;
      if (/^\d+\.\d+\.\d+$/.test(range)) (exactPins[`${dep}@${range}`] ??= []).push(t.name);
    }
  }
  for (const [pin, names] of Object.entries(exactPins)) {
    checks.warn(`peer ${pin} is an exact version in ${names.join(', ')}: an app on any other version gets an npm ERESOLVE`);
  }
  checks.expectNone('the packages agree on their public peer dependency ranges', conflicts);
  return peers;
}

function readManifest(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

function skipRest(reason) {
  for (const step of ['pack', 'inspect tarballs', 'install', 'envtest bin', 'compile', 'run', 'jest', 'create-protean']) {
    if (!checks.timings.some((t) => t.step === step)) checks.skip(step, reason);
  }
}

function printTable(list) {
  const rows = list.map((t) => [
    t.name,
    t.version,
    String(t.bytes),
    (t.bytes / 1024).toFixed(1),
    String(t.files),
    (t.unpackedBytes / 1024).toFixed(1),
  ]);
  const head = ['package', 'version', 'tarball bytes', 'KiB', 'files', 'unpacked KiB'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => `| ${r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(
    [
      '',
      fmt(head),
      `|${widths.map((w, i) => (i < 2 ? `-${'-'.repeat(w)}-` : `-${'-'.repeat(w)}:`)).join('|')}|`,
      ...rows.map(fmt),
      '',
    ].join('\n'),
  );
}

function summarize() {
  const { passed, failed, skipped } = checks.counts();
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `\nconsumer test timings: ${checks.timings.map((t) => `${t.step} ${t.seconds.toFixed(1)}s`).join(', ')}; total ${seconds.toFixed(1)}s`,
  );
  for (const { layout, seconds: s } of createTimings)
    console.log(`create-protean --layout ${layout}: create to first green test ${s.toFixed(1)}s`);
  if (checks.warnings.length > 0) console.log(`warnings:\n${checks.warnings.map((w) => `  - ${w}`).join('\n')}`);
  const failures = checks.details.filter((d) => d.status === 'failed');
  if (failures.length > 0) console.log(`failed checks:\n${failures.map((d) => `  - ${d.name}: ${d.message.split('\n')[0]}`).join('\n')}`);
  const tarballTable = tarballs.map(({ name, version, bytes, files, unpackedBytes }) => ({
    name,
    version,
    bytes,
    kib: Number((bytes / 1024).toFixed(1)),
    files,
    unpackedBytes,
  }));
  if (args.json !== undefined)
    checks.writeJson(resolve(args.json), {
      tarballs: tarballTable,
      node: nodeBin,
      clientNode: args['client-node'] ?? null,
      seconds,
      createToFirstGreenTest: createTimings,
    });
  console.log(`consumer test: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = failed === 0 ? 0 : 1;
}

/** The tarballs an earlier run packed from this tree (`--tarballs`), copied in as if packed here. */
function reusedTarballs(publishable, from) {
  mkdirSync(tarballDir, { recursive: true });
  return publishable.flatMap((pkg) => {
    const name = `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
    if (!existsSync(join(from, name))) {
      checks.fail(`packed ${pkg.name} reused from ${from}`, `no ${name} there`);
      return [];
    }
    copyFileSync(join(from, name), join(tarballDir, name));
    checks.pass(`packed ${pkg.name} reused from ${from}`, name);
    return [{ pkg, file: join(tarballDir, name) }];
  });
}
