// What a Node process holds before it watches anything: the RSS of an empty
// process, and after importing @kubernetes/client-node (whole, and only the
// module that defines KubeConfig), each runtime @protean/* package on its own,
// the packages the informers need together, after loading a KubeConfig file
// with client-node's KubeConfig and with Protean's ProteanKubeConfig, and a
// controller built by DynamicController.create over ProteanKubeConfig before
// any informer starts, and what a generated project's main loads, as files and
// bundled into one file as the project's build bundles it. Each case runs in a fresh process
// (`node --input-type=module -e`, importing, running the case's code, then
// reading process.memoryUsage.rss()), cases interleaved, 5 rounds (quick 3);
// the median is reported, and what it adds to the empty process.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from './lib/args.mjs';
import { bundle } from './lib/bundle.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { median } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const ROUNDS = flags.quick === true ? 3 : 5;
const here = fileURLToPath(new URL('.', import.meta.url));
// client-node's exports map names only its index; its KubeConfig module is the file beside it.
const kubeConfigModule = import.meta.resolve('@kubernetes/client-node').replace(/index\.js$/, 'config.js');
// The YAML parser ProteanKubeConfig uses, as @protean/transport resolves it.
const jsYaml = pathToFileURL(
  join(dirname(createRequire(import.meta.resolve('@protean/transport')).resolve('js-yaml/package.json')), 'dist/js-yaml.mjs'),
).href;

// A KubeConfig file as kubectl writes one: a CA, a client certificate and key (inline data) and a token.
const dir = mkdtempSync(join(tmpdir(), 'protean-bench-imports-'));
const kubeConfigFile = join(dir, 'config');
const pem = (label) => `-----BEGIN ${label}-----\n${Buffer.alloc(600, 7).toString('base64')}\n-----END ${label}-----\n`;
writeFileSync(
  kubeConfigFile,
  [
    'apiVersion: v1',
    'kind: Config',
    'current-context: bench',
    'clusters:',
    '- name: bench',
    '  cluster:',
    '    server: https://127.0.0.1:6443',
    `    certificate-authority-data: ${Buffer.from(pem('CERTIFICATE')).toString('base64')}`,
    'users:',
    '- name: bench',
    '  user:',
    `    client-certificate-data: ${Buffer.from(pem('CERTIFICATE')).toString('base64')}`,
    `    client-key-data: ${Buffer.from(pem('PRIVATE KEY')).toString('base64')}`,
    'contexts:',
    '- name: bench',
    '  context: { cluster: bench, user: bench }',
    '',
  ].join('\n'),
);
const loadClientNode = `const kc = new m[0].KubeConfig(); kc.loadFromFile(${JSON.stringify(kubeConfigFile)}); await kc.applyToHTTPSOptions({ headers: {} });`;
const loadProtean = `const kc = new m[0].ProteanKubeConfig(); kc.loadFromFile(${JSON.stringify(kubeConfigFile)}); await kc.applyToHTTPSOptions({ headers: {} });`;

// Each runtime package's build, by file (not every one is a dependency of the bench).
const RUNTIME_PACKAGES = [
  'core',
  'transport',
  'client',
  'watch-manager',
  'queue',
  'coordinator',
  'leader-election',
  'sharding',
  'metrics',
  'webhooks',
  'kinds',
];
const built = (name) => pathToFileURL(join(here, '..', 'packages', name, 'dist', 'index.js')).href;
// m[0] transport, m[1] core, m[2] watch-manager, m[3] queue, m[4] coordinator: nothing is registered, so no informer starts.
const buildController = `${loadProtean}
const controller = m[1].DynamicController.create({
  informerSource: new m[2].KubernetesInformerSource({ kubeConfig: kc }),
  workQueueFactory: m[3].createWorkQueueFactory(),
  watchManagerFactory: (d) => new m[2].InformerWatchManager(d.source, d.resyncPeriodMs, d.onEvent, d.logger),
  watchCoordinatorFactory: (d) => new m[4].IndexedWatchCoordinator(d.watchManager, d.enqueue, d.logger),
});
if (controller.watchCoordinator() === undefined) throw new Error('no controller');`;

// A generated project's imports, as files and bundled into one file as its build.mjs bundles dist/main.js.
const generatedImports = join(here, 'lib', 'generatedImports.mjs');
const generatedBundle = await bundle(generatedImports, join(here, 'lib', 'generatedImports.bundle.mjs'));

const CASES = [
  { label: 'empty process (node -e)', imports: [] },
  { label: '@kubernetes/client-node (whole)', imports: ['@kubernetes/client-node'] },
  { label: "@kubernetes/client-node's KubeConfig module only (dist/config.js)", imports: [kubeConfigModule] },
  ...RUNTIME_PACKAGES.map((name) => ({ label: `@protean/${name}`, imports: [built(name)] })),
  {
    label: 'what the informers load: client-node, core, transport, watch-manager',
    imports: ['@kubernetes/client-node', '@protean/core', '@protean/transport', '@protean/watch-manager'],
  },
  { label: 'js-yaml (the YAML parser of ProteanKubeConfig)', imports: [jsYaml] },
  { label: "client-node's KubeConfig, a KubeConfig file loaded", imports: ['@kubernetes/client-node'], code: loadClientNode },
  { label: '@protean/transport with ProteanKubeConfig, a KubeConfig file loaded', imports: ['@protean/transport'], code: loadProtean },
  {
    label: 'what the informers load with ProteanKubeConfig, no client-node: transport (config loaded), core, watch-manager',
    imports: ['@protean/transport', '@protean/core', '@protean/watch-manager'],
    code: loadProtean,
  },
  {
    label: 'a controller built with DynamicController.create + ProteanKubeConfig (config loaded), before any informer starts',
    imports: ['transport', 'core', 'watch-manager', 'queue', 'coordinator'].map(built),
    code: buildController,
  },
  {
    label: "what a generated project's src/main.ts loads (leader-election layout), its packages' files",
    imports: [pathToFileURL(generatedImports).href],
  },
  {
    label: "what a generated project's src/main.ts loads, bundled into one file as its build.mjs bundles dist/main.js",
    imports: [pathToFileURL(generatedBundle).href],
  },
];

/** The RSS of a fresh process that imported `imports`, in bytes. */
function rssAfter(imports, run = '') {
  // The case's code sees the imported modules as m[0], m[1], ...; a case that loads client-node must show it.
  const code =
    `const m = [];${imports.map((m) => `m.push(await import(${JSON.stringify(m)}));`).join('')}${run}` +
    `process.stdout.write(String(process.memoryUsage.rss()));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: here, encoding: 'utf8' }));
}

const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const samples = CASES.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  progress('imports', `round ${round + 1}/${ROUNDS}`);
  CASES.forEach((c, i) => samples[i].push(rssAfter(c.imports, c.code)));
}
const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
rmSync(dir, { recursive: true, force: true });
rmSync(generatedBundle, { force: true });
const MiB = 1024 * 1024;
const medians = samples.map((s) => median(s));
const rows = CASES.flatMap((c, i) => [
  { measure: `RSS after import: ${c.label}`, size: '-', work: 1, value: medians[i] / MiB, unit: 'MiB', digits: 1, cost: 'none' },
  ...(i === 0
    ? []
    : [
        {
          measure: `  added to the empty process: ${c.label}`,
          size: '-',
          work: 1,
          value: (medians[i] - medians[0]) / MiB,
          unit: 'MiB',
          digits: 1,
          cost: 'none',
        },
      ]),
]);
emitResult(flags, {
  name: 'imports',
  title: 'RSS of a Node process after its imports',
  rows,
  notes: [
    `Node ${process.version}; each case a fresh process, median of ${ROUNDS}, cases interleaved; load average ${loadBefore} before, ${loadAfter} after`,
  ],
  details: { rounds: ROUNDS, cases: CASES.map((c, i) => ({ ...c, samples: samples[i] })) },
});
