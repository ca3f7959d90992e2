import { createRequire } from 'node:module';

/** Attribute values a span accepts. */
export type TraceAttributeValue = string | number | boolean | readonly string[];

/** Span attributes; `undefined` values are left out. */
export type TraceAttributes = Readonly<Record<string, TraceAttributeValue | undefined>>;

/** A span's identity as OpenTelemetry's `SpanContext` carries it (ids in lower-case hex). */
export interface TraceSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

/** A link from a span to another span (OpenTelemetry's `Link`). */
export interface TraceLink {
  readonly context: TraceSpanContext;
  readonly attributes?: TraceAttributes;
}

/** The part of an OpenTelemetry `Span` Protean uses. */
export interface TraceSpan {
  spanContext(): TraceSpanContext;
  isRecording(): boolean;
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): void;
  end(): void;
}

/** The part of `@opentelemetry/api` Protean uses, typed here so no declaration of ours names the optional package. */
export interface OtelApi {
  readonly trace: {
    getTracerProvider(): { getTracer(name: string, version?: string): OtelTracer };
    setSpan(context: unknown, span: TraceSpan): unknown;
    getSpan(context: unknown): TraceSpan | undefined;
  };
  readonly context: { active(): unknown; with<T>(context: unknown, fn: () => T): T };
  readonly propagation: { inject(context: unknown, carrier: Record<string, string>): void };
  readonly ROOT_CONTEXT: unknown;
  readonly ProxyTracerProvider: new () => { getDelegate(): unknown };
}

/** The part of an OpenTelemetry `Tracer` Protean uses. */
export interface OtelTracer {
  startSpan(
    name: string,
    options: { kind?: number; attributes?: Record<string, TraceAttributeValue>; links?: unknown[]; startTime?: number },
    context?: unknown,
  ): TraceSpan;
}

let loaded: OtelApi | null | undefined;

/**
 * `@opentelemetry/api` when it is installed, else `undefined`; loaded once,
 * synchronously. Its registry of the tracer provider, context manager and
 * propagator is global, so this copy sees an SDK registered through any other.
 */
export function otelApi(): OtelApi | undefined {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
