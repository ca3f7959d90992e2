// Preload (`node --import ./lib/tracingOn.mjs e2e.mjs ...`): registers an
// OpenTelemetry SDK for the whole run, with a BatchSpanProcessor (the
// production setup) over an exporter that counts spans and drops them, so
// the figures show what recording and batching cost, without a collector.
// At exit it prints the spans exported per name on stderr.
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

const counts = new Map();
const exporter = {
  export(spans, done) {
    for (const span of spans) counts.set(span.name, (counts.get(span.name) ?? 0) + 1);
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};
const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
provider.register();
process.on('beforeExit', () => {
  void provider.forceFlush().then(() => {
    if (counts.size > 0) process.stderr.write(`spans exported: ${JSON.stringify(Object.fromEntries(counts))}\n`);
    counts.clear();
  });
});
