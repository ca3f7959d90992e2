import type { PassTrace } from './PassTrace.js';

/** A pass's trace and span ids as log fields (OpenTelemetry's log conventions), none while tracing is off. */
export function traceFields(trace: PassTrace | undefined): Record<string, string> {
  return trace === undefined ? {} : { trace_id: trace.ids.traceId, span_id: trace.ids.spanId };
}
