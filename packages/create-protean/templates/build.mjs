// `npm run build` (after the type check) and `npm run dev`: the controller bundled into one file, dist/main.js, which
// `npm start` and the image run. One module instead of the ~640 files of its dependencies (Protean's packages,
// Inversify, pino, prom-client): the process holds about 20 MiB less before it watches anything (README.md,
// "Memory").
//
//   node build.mjs           build once
//   node build.mjs --watch   build, then again on every change to src/
import { isBuiltin } from 'node:module';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { build, context } from 'esbuild';

/**
 * Node's own modules, imported anywhere in the bundle (`import { readFileSync } from 'node:fs'`), are taken from
 * `process.getBuiltinModule`, not through an ES import. For an ES import node builds the module's namespace, which
 * reads every export, getters included: `fs.promises` alone loads fs/promises, readline and the streams, about 3 MiB
 * of RSS for a controller that never uses them (`node:util` costs as much). Loader and require hooks (an agent
 * started with `--import` that instruments `node:http`) do not see these imports.
 * @type {import('esbuild').Plugin}
 */
export const builtinsWithoutNamespace = {
  name: 'builtins-without-namespace',
  setup(build) {
    build.onResolve({ filter: /^[\w:/]+$/ }, ({ path, kind }) =>
      (kind === 'import-statement' || kind === 'dynamic-import') && isBuiltin(path) ? { path, namespace: 'node-builtin' } : undefined,
    );
    // A node older than the one that built the bundle may lack the module: fail as its import would have.
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, ({ path }) => ({
      contents: `const m = process.getBuiltinModule(${JSON.stringify(path)});
if (m === undefined) throw Object.assign(new Error(${JSON.stringify(`No such built-in module: ${path}`)}), { code: 'ERR_UNKNOWN_BUILTIN_MODULE' });
module.exports = m;`,
      loader: 'js',
    }));
  },
};

/** @type {import('esbuild').BuildOptions} */
export const options = {
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  sourcemap: true,
  // Loaded from node_modules only when installed and asked for (a client-node KubeConfig passed to Protean).
  external: ['@kubernetes/client-node'],
  // pino and prom-client are CommonJS and require node's own modules; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire as createRequireOfMain } from 'node:module'; const require = createRequireOfMain(import.meta.url);",
  },
  plugins: [builtinsWithoutNamespace],
  logLevel: 'warning',
};

// Run as `node build.mjs` (not imported for its options). import.meta.main is new in Node 24.2: on 24.0 and 24.1
// it is undefined, and the path node was given decides.
const isMain = import.meta.main ?? (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url);
if (isMain) {
  if (process.argv.includes('--watch')) await (await context(options)).watch();
  else await build(options);
}
