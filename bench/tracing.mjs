// Tracing cost per pass: CPU time per routed pass of a controller over a fake
// informer source (the real queue, coordinator, watch manager and engine of
// @protean/testing), with no OpenTelemetry SDK registered (the API installed,
// tracing off) and with the SDK for Node, a BatchSpanProcessor and an exporter
// that drops what it is given (recording, batching and the export call, no
// network). Not part of run.mjs: `node --expose-gc tracing.mjs [--quick]`.
//
// Setup per round: 200 instances of one parent, each watching its own
// ConfigMap by name; after their first passes, UPDATES updates of those
// ConfigMaps, one at a time, each waited for until its pass ran (so each
// pass has one trigger, one event span and one link). Time is process CPU
// time (user + system) over the updates, the SDK's flush included.
// Rounds alternate off / on (quick: 3 each, else 5); the median is reported.
import { performance } from 'node:perf_hooks';
import { context, propagation, trace } from '@opentelemetry/api';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createTestController } from '@protean/testing';
import { parseArgs } from './lib/args.mjs';
import { progress } from './lib/report.mjs';
import { median } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick']);
const ROUNDS = flags.quick === true ? 3 : 5;
const INSTANCES = 200;
const UPDATES = flags.quick === true ? 2_000 : 5_000;
const webapps = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

let exported = 0;
const dropping = { export: (spans, done) => ((exported += spans.length), done({ code: 0 })), shutdown: async () => undefined };

async function round(mode) {
  const provider = mode === 'sdk' ? new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] }) : undefined;
  provider?.register();
  const t = createTestController({ config: { workers: 4 } });
  let passes = 0;
  for (let i = 0; i < INSTANCES; i++) {
    t.source.add(webapps, { namespace: 'ns', name: `w${i}` });
    t.source.add(configmaps, { namespace: 'ns', name: `cm-w${i}` });
  }
  await t.start();
  await t.register(webapps, async (instance, ctx) => {
    await ctx.watcher.watch({ nodeId: 'cm', gvr: configmaps, namespace: 'ns', name: `cm-${instance.name}` });
    passes++;
  });
  await t.waitFor(() => passes === INSTANCES);
  await provider?.forceFlush(); // the first passes' spans are not counted
  globalThis.gc?.();
  exported = 0;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let u = 0; u < UPDATES; u++) {
    const target = passes + 1;
    t.source.update(configmaps, { namespace: 'ns', name: `cm-w${u % INSTANCES}`, labels: { v: String(u) } });
    await t.waitFor(() => passes >= target);
  }
  await provider?.forceFlush();
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - wall0;
  await t.dispose();
  await provider?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  return { cpuUsPerPass: (cpu.user + cpu.system) / UPDATES, wallMsPerPass: wallMs / UPDATES, spans: exported };
}

const results = { off: [], sdk: [] };
await round('off'); // warm-up
await round('sdk');
for (let r = 1; r <= ROUNDS; r++) {
  for (const mode of ['off', 'sdk']) {
    const res = await round(mode);
    results[mode].push(res);
    progress('tracing', `round ${r} ${mode}: ${res.cpuUsPerPass.toFixed(1)} µs CPU/pass, ${res.spans} spans exported`);
  }
}
const off = median(results.off.map((r) => r.cpuUsPerPass));
const sdk = median(results.sdk.map((r) => r.cpuUsPerPass));
console.log(`tracing off (API installed, no SDK): ${off.toFixed(1)} µs CPU per routed pass (median of ${ROUNDS})`);
console.log(
  `SDK + BatchSpanProcessor, dropping exporter: ${sdk.toFixed(1)} µs CPU per routed pass; overhead ${(sdk - off).toFixed(1)} µs (${((sdk / off - 1) * 100).toFixed(0)} %)`,
);
console.log(`spans per pass with the SDK: ${(results.sdk[0].spans / UPDATES).toFixed(2)} (the event's and the pass's)`);
