import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { RecentPassesRecorder } from '@protean/metrics';
import { SpanTreePrinter } from './SpanTreePrinter.js';

/** The demo's OpenTelemetry SDK while it runs (`--trace`). */
export interface DemoTracing {
  /** The last passes with their spans, for the status page's Recent passes. */
  readonly recentPasses: RecentPassesRecorder;
  /** Flushes what is left and unregisters the SDK. */
  stop(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK for Node for `--trace`: with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * set, spans go to that collector by OTLP over HTTP, batched; otherwise each
 * pass is printed as a compact span tree on `out`. Either way the last
 * passes are kept for the status page (`recentPasses`).
 */
export function startDemoTracing(env: Readonly<Record<string, string | undefined>>, out: (line: string) => void): DemoTracing {
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] ?? '';
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'] ?? '';
  const endpoint = traces !== '' ? traces : base !== '' ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
  const exporting = endpoint !== undefined;
  const processor = exporting ? new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint })) : new SpanTreePrinter(out);
  const recentPasses = new RecentPassesRecorder();
  const provider = new NodeTracerProvider({ spanProcessors: [processor, recentPasses] });
  provider.register();
  out(
    exporting
      ? `tracing: exporting spans by OTLP to ${endpoint}`
      : 'tracing: printing a span tree per pass (set OTEL_EXPORTER_OTLP_ENDPOINT to export)',
  );
  return {
    recentPasses,
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
