// Checks one packed tarball the way a registry user would receive it.
import { builtinModules, createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { run } from './run.mjs';

const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'devDependencies', 'optionalDependencies'];
const ENTRY_FIELDS = ['main', 'types', 'typings', 'module'];

/**
 * Extracts `tarball` under `extractRoot` and records on `checks` whether
 * its package.json has no `workspace:`/`catalog:` ranges, it has a `dist/`,
 * every file named by `exports`/`main`/`types`/`bin` is inside, no tsbuildinfo file is
 * inside (test code is the pack step's check: testSupport.mjs), README.md is inside, and every import in its .js/.d.ts files is
 * either relative to a shipped file, a Node builtin, or a declared
 * dependency/peer. Returns `{ name, version, bytes, files, unpackedBytes, manifest }`.
 *
 * With `sourceDir` (the package's directory in the workspace) it also warns
 * about dist files that have no source any more (stale build output).
 *
 * Easy to get wrong: `workspaceRoot` must be the repository root, because
 * the import scan uses the workspace's own TypeScript to parse files.
 */
export function inspectTarball(tarball, extractRoot, checks, workspaceRoot, sourceDir) {
  const dir = join(extractRoot, posix.basename(tarball, '.tgz'));
  mkdirSync(dir, { recursive: true });
  const untar = run('tar', ['-xzf', tarball, '-C', dir]);
  if (!untar.ok) throw new Error(`tar -xzf ${tarball} failed: ${untar.output}`);
  const pkgDir = join(dir, 'package');
  const manifestText = readFileSync(join(pkgDir, 'package.json'), 'utf8');
  const manifest = JSON.parse(manifestText);
  const label = `${manifest.name}@${manifest.version}`;
  const files = listFiles(pkgDir);
  const fileSet = new Set(files);

  const ranges = [];
  for (const field of DEPENDENCY_FIELDS) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (/^(workspace|catalog):/.test(range)) ranges.push(`${field}.${dep}=${range}`);
    }
  }
  // Anywhere else in the manifest too (overrides, publishConfig, ...).
  for (const m of manifestText.matchAll(/"(?:workspace|catalog):[^"]*"/g)) {
    if (!ranges.some((r) => r.endsWith(m[0].slice(1, -1)))) ranges.push(m[0]);
  }
  checks.expectNone(`${label}: package.json has no workspace:/catalog: ranges`, ranges);

  checks.expectNone(`${label}: has its build output (dist/)`, files.some((f) => f.startsWith('dist/')) ? [] : ['no dist/ in the tarball']);

  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  const entries = [
    ...ENTRY_FIELDS.map((f) => manifest[f]).filter((v) => typeof v === 'string'),
    ...exportTargets(manifest.exports),
    ...bins,
  ];
  const missingEntries = [...new Set(entries)].filter((e) => !e.includes('*') && !fileSet.has(posix.normalize(e)));
  checks.expectNone(
    `${label}: every file named by exports/main/types/bin is in the tarball`,
    missingEntries.map((e) => `missing ${e}`),
  );

  // Test code and test support: the pack step's check, from the listing (testSupport.mjs).
  checks.expectNone(
    `${label}: no tsbuildinfo`,
    files.filter((f) => f.endsWith('.tsbuildinfo')),
  );

  checks.expectNone(`${label}: README.md is in the tarball`, fileSet.has('README.md') ? [] : ['README.md missing']);

  checks.expectNone(
    `${label}: every import resolves to a shipped file, a builtin or a declared dependency`,
    importProblems(pkgDir, files, fileSet, manifest, workspaceRoot),
  );

  const fixtures = files.filter((f) => /(^|\/)__fixtures__\//.test(f));
  if (fixtures.length > 0) checks.warn(`${label} ships test fixtures: ${fixtures.join(', ')}`);
  const orphanMaps = files.filter((f) => f.endsWith('.map')).filter((f) => mapSourcesMissing(pkgDir, f, fileSet));
  if (orphanMaps.length > 0)
    checks.warn(`${label}: ${orphanMaps.length} source maps point at sources not in the tarball (e.g. ${orphanMaps[0]})`);

  if (sourceDir !== undefined) {
    const stale = files.filter((f) => {
      const m = /^dist\/(.+?)\.(?:js|d\.ts)$/.exec(f);
      return m !== null && !['.ts', '.tsx', '.mts'].some((ext) => existsSync(join(sourceDir, 'src', `${m[1]}${ext}`)));
    });
    if (stale.length > 0)
      checks.warn(
        `${label}: ${stale.length} dist files have no source (stale build output? tsc -b --clean): ${stale.slice(0, 5).join(', ')}`,
      );
  }

  return {
    name: manifest.name,
    version: manifest.version,
    bytes: statSync(tarball).size,
    files: files.length,
    unpackedBytes: files.reduce((sum, f) => sum + statSync(join(pkgDir, f)).size, 0),
    manifest,
  };
}

function listFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** Every string leaf of an `exports` map, e.g. "./dist/index.js". */
function exportTargets(exp) {
  if (typeof exp === 'string') return [exp];
  if (exp === null || typeof exp !== 'object') return [];
  return Object.values(exp).flatMap(exportTargets);
}

function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function importProblems(pkgDir, files, fileSet, manifest, workspaceRoot) {
  const ts = createRequire(join(workspaceRoot, 'package.json'))('typescript');
  const declared = new Set([
    manifest.name,
    ...['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((f) => Object.keys(manifest[f] ?? {})),
  ]);
  const problems = [];
  // A generator's templates/ import what the generated project depends on, not the generator.
  const shipped = files.filter((f) => (f.endsWith('.js') || f.endsWith('.d.ts')) && !f.startsWith('templates/'));
  for (const file of shipped) {
    const info = ts.preProcessFile(readFileSync(join(pkgDir, file), 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles) {
      if (spec.startsWith('.')) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec));
        const candidates = file.endsWith('.d.ts') ? [target.replace(/\.js$/, '.d.ts'), target] : [target];
        if (!candidates.some((c) => fileSet.has(c))) problems.push(`${file} imports ${spec}, which is not in the tarball`);
      } else if (spec.startsWith('node:') || builtinModules.includes(spec)) {
        continue;
      } else if (!declared.has(packageNameOf(spec))) {
        problems.push(`${file} imports ${spec}, not a dependency or peer`);
      }
    }
  }
  return problems;
}

function mapSourcesMissing(pkgDir, mapFile, fileSet) {
  try {
    const map = JSON.parse(readFileSync(join(pkgDir, mapFile), 'utf8'));
    const base = posix.dirname(mapFile);
    return (map.sources ?? []).some((s) => !fileSet.has(posix.normalize(posix.join(base, map.sourceRoot ?? '', s))));
  } catch {
    return true;
  }
}
