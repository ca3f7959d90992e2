// `npm run build` (after the type check) and `npm run dev`: the controller bundled into one file, dist/main.js, which
// `npm start` and the image run. One module instead of the ~640 files of its dependencies (Protean's packages,
// Inversify, pino, prom-client): the process holds about 20 MiB less before it watches anything (README.md,
// "Memory").
//
//   node build.mjs           build once
//   node build.mjs --watch   build, then again on every change to src/
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { build, context } from 'esbuild';

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
  logLevel: 'warning',
};

// Run as `node build.mjs` (not imported for its options). import.meta.main is new in Node 24.2: on 24.0 and 24.1
// it is undefined, and the path node was given decides.
const isMain = import.meta.main ?? (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url);
if (isMain) {
  if (process.argv.includes('--watch')) await (await context(options)).watch();
  else await build(options);
}
