// Which unit-test files load @kubernetes/client-node when they run: the test
// itself, or any workspace module it imports, directly or through others,
// imports client-node as a value (`import type` is erased by the compiler and
// loads nothing). node20-compat runs these on client-node 1.4; the others
// never touch client-node, so they run the same code there as on Node 24.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const CLIENT_NODE = '@kubernetes/client-node';
/** Test files of the real and browser tiers, which the unit tier's Jest configs leave out. */
const OTHER_TIERS = ['.real.test.ts', '.browser.test.ts'];
/** Static imports and re-exports (`import x from '...'`, `import '...'`, `export * from '...'`) and `import('...')`. */
const IMPORT = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;

/**
 * The unit-test files (`*.test.ts`, not `*.real.test.ts` or `*.browser.test.ts`) under `<root>/<dir>/src` for each of `dirs`
 * that load client-node, as absolute paths, sorted.
 */
export function testsLoadingClientNode(root, dirs) {
  const tests = dirs.flatMap((dir) => {
    const src = join(root, dir, 'src');
    if (!existsSync(src)) return [];
    return readdirSync(src, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.test.ts') && !OTHER_TIERS.some((suffix) => file.endsWith(suffix)))
      .map((file) => join(src, file));
  });
  // Every module the tests reach, with who imports it; then client-node's loaders, spread back to their importers.
  const importers = new Map();
  const loaders = [];
  const seen = new Set(tests);
  for (const pending = [...tests]; pending.length > 0;) {
    const file = pending.pop();
    const { clientNode, modules } = parseImports(root, file);
    if (clientNode) loaders.push(file);
    for (const module of modules) {
      importers.set(module, [...(importers.get(module) ?? []), file]);
      if (!seen.has(module)) {
        seen.add(module);
        pending.push(module);
      }
    }
  }
  const loading = new Set(loaders);
  for (const pending = [...loaders]; pending.length > 0;) {
    for (const importer of importers.get(pending.pop()) ?? []) {
      if (!loading.has(importer)) {
        loading.add(importer);
        pending.push(importer);
      }
    }
  }
  return tests.filter((file) => loading.has(file)).sort();
}

/** A module's value imports: whether one is client-node, and the workspace modules (absolute .ts paths). */
function parseImports(root, file) {
  const source = readFileSync(file, 'utf8');
  let clientNode = false;
  const modules = [];
  for (const match of source.matchAll(IMPORT)) {
    if (match[2] !== undefined) continue;
    const specifier = match[3] ?? match[4];
    if (specifier === CLIENT_NODE) clientNode = true;
    const module = resolveModule(root, file, specifier);
    if (module !== undefined) modules.push(module);
  }
  return { clientNode, modules };
}

/** A relative or `@protean/<pkg>[/testing]` specifier as the workspace .ts file it maps to (as jest.preset.js does). */
function resolveModule(root, from, specifier) {
  let base;
  if (specifier.startsWith('.')) base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  else {
    const protean = /^@protean\/([a-z-]+)(\/testing)?$/.exec(specifier);
    if (protean === null) return undefined;
    base = join(root, 'packages', protean[1], 'src', protean[2] === undefined ? 'index' : 'testing/index');
  }
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}
