// What a Node process holds before it watches anything: the RSS of an empty
// process, and after importing @kubernetes/client-node (whole, and only the
// module that defines KubeConfig) and each @protean/* package the informers
// need. Each case runs in a fresh process (`node --input-type=module -e`,
// importing, then reading process.memoryUsage.rss()), cases interleaved,
// 5 rounds (quick 3); the median is reported, and what it adds to the
// empty process.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './lib/args.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { median } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const ROUNDS = flags.quick === true ? 3 : 5;
const here = fileURLToPath(new URL('.', import.meta.url));
// client-node's exports map names only its index; its KubeConfig module is the file beside it.
const kubeConfigModule = import.meta.resolve('@kubernetes/client-node').replace(/index\.js$/, 'config.js');

const CASES = [
  { label: 'empty process (node -e)', imports: [] },
  { label: '@kubernetes/client-node (whole)', imports: ['@kubernetes/client-node'] },
  { label: "@kubernetes/client-node's KubeConfig module only (dist/config.js)", imports: [kubeConfigModule] },
  { label: '@protean/core', imports: ['@protean/core'] },
  { label: '@protean/transport', imports: ['@protean/transport'] },
  { label: '@protean/watch-manager', imports: ['@protean/watch-manager'] },
  {
    label: 'what the informers load: client-node, core, transport, watch-manager',
    imports: ['@kubernetes/client-node', '@protean/core', '@protean/transport', '@protean/watch-manager'],
  },
];

/** The RSS of a fresh process that imported `imports`, in bytes. */
function rssAfter(imports) {
  const code = `${imports.map((m) => `await import(${JSON.stringify(m)});`).join('')}process.stdout.write(String(process.memoryUsage.rss()));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: here, encoding: 'utf8' }));
}

const samples = CASES.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  progress('imports', `round ${round + 1}/${ROUNDS}`);
  CASES.forEach((c, i) => samples[i].push(rssAfter(c.imports)));
}
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
  notes: [`Node ${process.version}; each case a fresh process, median of ${ROUNDS}, cases interleaved`],
  details: { rounds: ROUNDS, cases: CASES.map((c, i) => ({ ...c, samples: samples[i] })) },
});
