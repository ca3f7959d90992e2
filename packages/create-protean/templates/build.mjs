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
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, ({ path }) => ({
      contents: `module.exports = require('protean-builtins').builtin(${JSON.stringify(path)});`,
      loader: 'js',
    }));
    resolveBuiltinsRuntime(build);
  },
};

// The module both plugins' modules take node's modules from. `builtin`: node's module `id`; a node older than the one
// that built the bundle may lack it, and then it fails as an import would have. The rest serves the stand-ins of
// lazyBuiltinsOfDependencies.
const BUILTINS_RUNTIME = `
const builtin = (id) => {
  const m = process.getBuiltinModule(id);
  if (m === undefined) throw Object.assign(new Error('No such built-in module: ' + id), { code: 'ERR_UNKNOWN_BUILTIN_MODULE' });
  return m;
};
// What the real object has, as configurable (the stand-in's target lacks it), but what the target holds as
// non-configurable (a function's prototype): a proxy must report that as the target has it.
const ownDescriptor = (real, target, key) => {
  const own = Reflect.getOwnPropertyDescriptor(target, key);
  if (own !== undefined && !own.configurable) return own;
  const d = Reflect.getOwnPropertyDescriptor(real, key);
  return d === undefined ? undefined : { ...d, configurable: true };
};
// A function (or class) that loads what it stands for when called, constructed, read or written.
exports.lazyFunction = (load) => {
  const target = function () {};
  return new Proxy(target, {
    apply: (_, self, args) => Reflect.apply(load(), self, args),
    construct: (_, args, newTarget) => Reflect.construct(load(), args, newTarget),
    get: (_, key) => Reflect.get(load(), key),
    set: (_, key, value) => Reflect.set(load(), key, value),
    has: (_, key) => Reflect.has(load(), key),
    ownKeys: () => [...new Set([...Reflect.ownKeys(load()), ...Reflect.ownKeys(target)])],
    getOwnPropertyDescriptor: (_, key) => ownDescriptor(load(), target, key),
  });
};
// A module object whose members load the module when read or written; \`eager\` answers some without loading it.
exports.lazyModule = (id, eager) => {
  let m;
  const load = () => (m ??= builtin(id));
  const target = {};
  return new Proxy(target, {
    get: (_, key) => (m === undefined && Object.hasOwn(eager, key) ? eager[key]() : Reflect.get(load(), key)),
    set: (_, key, value) => Reflect.set(load(), key, value),
    has: (_, key) => Reflect.has(load(), key),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, key) => ownDescriptor(load(), target, key),
  });
};
exports.builtin = builtin;
`;

/** Resolves `require('protean-builtins')` in the plugins' own modules to {@link BUILTINS_RUNTIME}. */
function resolveBuiltinsRuntime(build) {
  build.onResolve({ filter: /^protean-builtins$/ }, ({ path }) => ({ path, namespace: 'protean-builtins' }));
  build.onLoad({ filter: /.*/, namespace: 'protean-builtins' }, () => ({ contents: BUILTINS_RUNTIME, loader: 'js' }));
}

// The shims: `require('assert')` and `require('worker_threads')` in a dependency, as CommonJS modules.
const LAZY_SHIMS = {
  assert: `const { builtin, lazyFunction } = require('protean-builtins');
module.exports = lazyFunction(() => builtin('assert'));`,
  // pino reads isMainThread, thread-stream takes Worker, both as they load; only a transport's worker needs the module.
  // Node's bootstrap of a worker thread loads worker_threads before any code of the program runs: while it is not
  // loaded, this is the main thread. (process.moduleLoadList is undocumented; without it the module is loaded.)
  worker_threads: `const { builtin, lazyFunction, lazyModule } = require('protean-builtins');
const notYetLoaded = () => Array.isArray(process.moduleLoadList) && !process.moduleLoadList.includes('NativeModule worker_threads');
const Worker = lazyFunction(() => builtin('worker_threads').Worker);
module.exports = lazyModule('worker_threads', {
  isMainThread: () => notYetLoaded() || builtin('worker_threads').isMainThread,
  Worker: () => Worker,
});`,
};

/**
 * `require('assert')` and `require('worker_threads')` in the bundle's dependencies load the module on first use,
 * not as the requiring module loads. pino and its sonic-boom and thread-stream require both at start; worker_threads
 * serves a transport (a worker thread) only, assert a check when a stream closes; loading them (and the streams worker_threads needs) costs
 * about 2 MiB of RSS before the controller does anything. `assert` and `Worker` stand in as functions that load the
 * real one when called, constructed, read or written; `isMainThread` is answered without loading the module; any
 * other member loads it. Easy to get wrong: a stand-in is not the real one (`require('assert') === assert` is
 * false), and `Object.getOwnPropertyDescriptor(Worker, 'prototype')` describes the stand-in's own.
 * @type {import('esbuild').Plugin}
 */
export const lazyBuiltinsOfDependencies = {
  name: 'lazy-builtins-of-dependencies',
  setup(build) {
    build.onResolve({ filter: /^(node:)?(assert|worker_threads)$/ }, ({ path, kind }) =>
      kind === 'require-call' ? { path: path.replace(/^node:/, ''), namespace: 'node-builtin-lazy' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'node-builtin-lazy' }, ({ path }) => ({ contents: LAZY_SHIMS[path], loader: 'js' }));
    resolveBuiltinsRuntime(build);
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
  plugins: [builtinsWithoutNamespace, lazyBuiltinsOfDependencies],
  logLevel: 'warning',
};

// Run as `node build.mjs` (not imported for its options). import.meta.main is new in Node 24.2: on 24.0 and 24.1
// it is undefined, and the path node was given decides.
const isMain = import.meta.main ?? (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url);
if (isMain) {
  if (process.argv.includes('--watch')) await (await context(options)).watch();
  else await build(options);
}
