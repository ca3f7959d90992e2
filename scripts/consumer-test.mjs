#!/usr/bin/env node
// The consumer test: packs every publishable package, checks each tarball,
// installs the tarballs into a throwaway npm project outside the workspace
// and compiles and runs a small controller against the published types.
//
// Usage: node scripts/consumer-test.mjs [--node <node binary>] [--client-node <version>]
//                                        [--json <file>] [--keep]
//   --node         Node binary for npm install, tsc and the fixture (default: this one)
//   --client-node  force every @kubernetes/client-node copy to this version (npm overrides)
//   --json         write { passed, failed, skipped, details, ... } for the root test runner
//   --keep         keep the temp dir (printed) for inspection
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CheckList } from './consumer/CheckList.mjs';
import { findCopies } from './consumer/findCopies.mjs';
import { inspectTarball } from './consumer/inspectTarball.mjs';
import { run, tail } from './consumer/run.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixtureDir = join(root, 'scripts/consumer/fixture');
const { values: args } = parseArgs({
  options: {
    node: { type: 'string', default: process.execPath },
    'client-node': { type: 'string' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const nodeBin = resolve(args.node);
const checks = new CheckList();
const work = mkdtempSync(join(tmpdir(), 'protean-consumer-'));
const tarballDir = join(work, 'tarballs');
const appDir = join(work, 'app');
// npm, and anything it spawns through `#!/usr/bin/env node`, runs on the chosen Node.
const env = { ...process.env, PATH: `${dirname(nodeBin)}${delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };
const started = Date.now();
let tarballs = [];

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
  const packageDirs = readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => {
      try {
        return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true;
      } catch {
        return false;
      }
    });

  // Only the publishable projects: examples are not shipped, and their build is the root typecheck's job.
  const built = await checks.step('build', () => {
    const res = run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', ...packageDirs], { cwd: root });
    if (res.ok) checks.pass('tsc -b of the publishable packages');
    else checks.fail('tsc -b of the publishable packages', tail(res.output));
    return res.ok;
  });
  if (!built) return skipRest('build failed');

  const packed = await checks.step('pack', () => {
    mkdirSync(tarballDir, { recursive: true });
    const out = [];
    for (const dir of packageDirs) {
      const name = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name;
      const before = new Set(readdirSync(tarballDir));
      const res = run('pnpm', ['pack', '--pack-destination', tarballDir], { cwd: dir });
      const made = readdirSync(tarballDir).filter((f) => f.endsWith('.tgz') && !before.has(f));
      if (res.ok && made.length === 1) {
        checks.pass(`pnpm pack ${name}`, made[0]);
        out.push({ dir, file: join(tarballDir, made[0]) });
      } else {
        checks.fail(`pnpm pack ${name}`, `${made.length} tarballs made\n${tail(res.output)}`);
      }
    }
    return out;
  });
  if (packed.length !== packageDirs.length) return skipRest(`${packageDirs.length - packed.length} packages did not pack`);

  await checks.step('inspect tarballs', () => {
    tarballs = packed.map(({ dir, file }) => ({ ...inspectTarball(file, join(work, 'extract'), checks, root, dir), path: file }));
    printTable(tarballs);
  });

  const peers = agreedPeers(tarballs);
  const clientNode = args['client-node'] ?? publishedClientNode(tarballs);
  await checks.step('install', () => install(peers, clientNode));
  if (!checks.details.some((d) => d.name === 'npm install of the tarballs' && d.status === 'passed')) return skipRest('npm install failed');

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
    else checks.fail('the fixture exits 0 by itself after shutdown', `exit ${res.status ?? res.signal}, ${reported} checks reported\n${tail(res.output, 40)}`);
  });
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
    checks.warn(`${thirdParty.length} type errors in third-party typings (skipLibCheck: false): ${[...new Set(thirdParty.map((l) => l.replace(/\(\d+,\d+\)/, '').slice(0, 160)))].join(' | ')}`);
  }
  if (res.ok || (ours.length === 0 && errors.length > 0)) checks.pass(name);
  else checks.fail(name, ours.length > 0 ? ours.join('\n') : tail(res.output, 40));
  return existsSync(join(appDir, 'dist/controller.js')) && ours.length === 0;
}

function install(peers, clientNode) {
  mkdirSync(appDir, { recursive: true });
  cpSync(join(fixtureDir, 'src'), join(appDir, 'src'), { recursive: true });
  copyFileSync(join(fixtureDir, 'tsconfig.json'), join(appDir, 'tsconfig.json'));
  const catalog = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const typesNode = /'@types\/node':\s*(\S+)/.exec(catalog)?.[1] ?? '^20.19.0';
  const manifest = {
    name: 'protean-consumer-fixture',
    version: '0.0.0',
    private: true,
    type: 'module',
    dependencies: {
      ...Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.path}`])),
      ...peers,
      '@kubernetes/client-node': clientNode,
    },
    devDependencies: { typescript: '5.9.3', '@types/node': typesNode },
    ...(args['client-node'] === undefined ? {} : { overrides: { '@kubernetes/client-node': clientNode } }),
  };
  writeFileSync(join(appDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`  dependencies: ${JSON.stringify(manifest.dependencies)}`);
  const res = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: appDir, env });
  if (!res.ok) return checks.fail('npm install of the tarballs', tail(res.output, 40));
  checks.pass('npm install of the tarballs', `${res.seconds.toFixed(1)}s`);

  const ls = run('npm', ['ls', '--all', '--json'], { cwd: appDir, env });
  let problems;
  try {
    problems = JSON.parse(ls.stdout).problems ?? [];
  } catch {
    problems = [`npm ls output is not JSON: ${tail(ls.output, 5)}`];
  }
  checks.expectNone('npm ls --all reports no missing, invalid or extraneous packages', problems);

  const expectOne = (name, version) => {
    const copies = findCopies(appDir, name);
    const where = copies.map((c) => `${c.location}@${c.version}`).join(', ');
    if (copies.length !== 1) return checks.fail(`exactly one copy of ${name}`, `${copies.length} copies: ${where || 'none'}`);
    if (version !== undefined && copies[0].version !== version) return checks.fail(`exactly one copy of ${name}`, `${where}, expected ${version}`);
    checks.pass(`exactly one copy of ${name}`, where);
  };
  expectOne('inversify');
  expectOne('reflect-metadata');
  for (const t of tarballs) expectOne(t.name, t.version);
  expectOne('@kubernetes/client-node', clientNode);
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

function publishedClientNode(list) {
  for (const t of list) {
    const v = t.manifest.dependencies?.['@kubernetes/client-node'];
    if (v !== undefined) return v;
  }
  throw new Error('no package depends on @kubernetes/client-node');
}

function skipRest(reason) {
  for (const step of ['pack', 'inspect tarballs', 'install', 'compile', 'run']) {
    if (!checks.timings.some((t) => t.step === step)) checks.skip(step, reason);
  }
}

function printTable(list) {
  const rows = list.map((t) => [t.name, t.version, String(t.bytes), (t.bytes / 1024).toFixed(1), String(t.files), (t.unpackedBytes / 1024).toFixed(1)]);
  const head = ['package', 'version', 'tarball bytes', 'KiB', 'files', 'unpacked KiB'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => `| ${r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(['', fmt(head), `|${widths.map((w, i) => (i < 2 ? `-${'-'.repeat(w)}-` : `-${'-'.repeat(w)}:`)).join('|')}|`, ...rows.map(fmt), ''].join('\n'));
}

function summarize() {
  const { passed, failed, skipped } = checks.counts();
  const seconds = (Date.now() - started) / 1000;
  console.log(`\nconsumer test timings: ${checks.timings.map((t) => `${t.step} ${t.seconds.toFixed(1)}s`).join(', ')}; total ${seconds.toFixed(1)}s`);
  if (checks.warnings.length > 0) console.log(`warnings:\n${checks.warnings.map((w) => `  - ${w}`).join('\n')}`);
  const failures = checks.details.filter((d) => d.status === 'failed');
  if (failures.length > 0) console.log(`failed checks:\n${failures.map((d) => `  - ${d.name}: ${d.message.split('\n')[0]}`).join('\n')}`);
  const tarballTable = tarballs.map(({ name, version, bytes, files, unpackedBytes }) => ({ name, version, bytes, kib: Number((bytes / 1024).toFixed(1)), files, unpackedBytes }));
  if (args.json !== undefined) checks.writeJson(resolve(args.json), { tarballs: tarballTable, node: nodeBin, clientNode: args['client-node'] ?? null, seconds });
  console.log(`consumer test: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = failed === 0 ? 0 : 1;
}
