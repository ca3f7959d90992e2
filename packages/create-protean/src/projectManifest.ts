import { PROTEAN_VERSIONS } from './proteanVersions.js';
import type { ResolvedProject } from './resolveProject.js';
import { VENDOR_DIR } from './vendorTarballs.js';

/**
 * Versions of what a generated project needs besides `@protean/*`: the
 * peers of the Protean packages and the tools of its tests and build.
 */
export const PROJECT_DEPENDENCIES = {
  inversify: '^8.2.3',
  'prom-client': '^15.1.3',
  'reflect-metadata': '^0.2.2',
} as const;

/**
 * The flags node runs the controller with, in the image (the Dockerfile's
 * CMD) and in `npm start` / `npm run dev` alike. V8's young generation held
 * to 2 MiB per semi-space: by default it grows to tens of MiB while the
 * informers list, and stays resident (1 MiB saved no more and scavenged
 * twice as often). The old generation capped at half the container's memory
 * limit (deploy/'s Deployment, 512Mi; the generated `src/memory.test.ts`
 * holds the two together): under a cap below its default, V8 lets the heap
 * grow to at most 1.3-2x what survived the last full collection instead of
 * 4x, so the sync's dead Buffers are freed during the sync rather than left
 * in malloc's heap. The old generation's first full collection put off
 * to 64 MiB: by default V8 lowers that first limit by how much of the young
 * generation survives its scavenges, and while the informers list nearly
 * all of it does (it is the cache), so V8 marked the whole live heap at 16,
 * 22, 33 and 47 MiB, freeing little: 13-15 % of the sync's CPU. After the
 * sync V8's memory reducer collects as before (it starts on the first growth
 * of the old generation) and later limits follow from what survived.
 * Measured in bench/README.md (`anchor`).
 */
export const NODE_RUNTIME_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=256', '--initial-old-space-size=64'] as const;

/** The generated project's development tools (Jest set up as `@protean/testing`'s README says). */
export const PROJECT_DEV_DEPENDENCIES = {
  // The tests' API servers hand out client-node KubeConfigs; the controller itself reads its config with
  // @protean/transport's loadKubeConfig, so client-node is not loaded in production.
  '@kubernetes/client-node': '^2.0.1',
  '@eslint/js': '^10.0.1',
  '@jest/globals': '^30.5.2',
  '@swc/core': '^1.16.22',
  '@swc/jest': '^0.2.39',
  '@types/node': '^24.0.0',
  // Bundles the controller into one file (build.mjs).
  esbuild: '^0.28.2',
  eslint: '^10.15.0',
  jest: '^30.5.2',
  typebox: '^1.4.3',
  typescript: '~5.9.3',
  'typescript-eslint': '^8.74.0',
  yaml: '^2.9.1',
} as const;

/** The `@protean/*` packages the generated code imports at run time, per layout. */
function proteanRuntime(project: ResolvedProject): string[] {
  const common = ['client', 'coordinator', 'core', 'leader-election', 'metrics', 'queue', 'transport', 'watch-manager'];
  return [...common, ...(project.layout === 'sharding' ? ['sharding'] : []), ...(project.webhooks ? ['webhooks'] : [])].sort();
}

const sorted = (entries: Array<[string, string]>): Record<string, string> =>
  Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));

/** The `@protean/*` packages only the generated tests import. */
const PROTEAN_DEV = ['envtest', 'in-memory-apiserver', 'kinds', 'permissions', 'testing'];

/** Every `@protean/*` package a generated project depends on. */
export function proteanDependencies(project: ResolvedProject): string[] {
  return [...proteanRuntime(project), ...PROTEAN_DEV].map((n) => `@protean/${n}`);
}

/**
 * The generated project's package.json, as an object. With `vendored`
 * (package name → tarball file in `vendor/`), every `@protean/*`
 * dependency is that file, and `overrides` make the packages' own
 * dependencies on each other the same files.
 */
export function projectManifest(project: ResolvedProject, vendored?: ReadonlyMap<string, string>): Record<string, unknown> {
  const specOf = (name: string): string => {
    const file = vendored?.get(name);
    return file !== undefined ? `file:${VENDOR_DIR}/${file}` : (project.proteanRange ?? `^${PROTEAN_VERSIONS[name]}`);
  };
  const protean = (names: string[]): Array<[string, string]> => names.map((n) => [`@protean/${n}`, specOf(`@protean/${n}`)]);
  const jest = 'node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js';
  return {
    name: project.name,
    version: '0.1.0',
    private: true,
    description: `A dynamic Kubernetes controller for ${project.kind} (${project.group}), built on Protean`,
    type: 'module',
    engines: { node: '>=24' },
    scripts: {
      // Type-checked, then bundled into dist/main.js (build.mjs).
      build: 'tsc -p tsconfig.json && node build.mjs',
      typecheck: 'tsc -p tsconfig.json',
      lint: 'eslint .',
      test: jest,
      'test:real': `PROTEAN_ENVTEST=1 ${jest} --runInBand src/controller.real.test.ts`,
      // deploy/crd.yaml from the kind's one declaration (src/kind.ts); src/kind.test.ts fails when they drift.
      crd: 'protean-crd src/kind.ts --out deploy/crd.yaml',
      start: `node ${NODE_RUNTIME_FLAGS.join(' ')} dist/main.js`,
      // On your machine against the current kubeconfig context: compiles, runs, and restarts on every change.
      dev: `node build.mjs && (node build.mjs --watch & node ${NODE_RUNTIME_FLAGS.join(' ')} --watch dist/main.js)`,
    },
    dependencies: sorted([...protean(proteanRuntime(project)), ...Object.entries(PROJECT_DEPENDENCIES)]),
    devDependencies: sorted([...protean(PROTEAN_DEV), ...Object.entries(PROJECT_DEV_DEPENDENCIES)]),
    ...(vendored === undefined ? {} : { overrides: sorted([...vendored].map(([name, file]) => [name, `file:${VENDOR_DIR}/${file}`])) }),
  };
}
