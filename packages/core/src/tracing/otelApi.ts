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
 * `@opentelemetry/api` when it is installed and something registered with
 * it (a tracer provider, context manager or propagator), else `undefined`;
 * loaded once, synchronously. Its registry is global, so this copy sees an
 * SDK registered through any other.
 *
 * Until something registers, the API would answer with its no-ops only, so
 * it is not loaded: loading it costs a controller's process about 2 MiB of
 * RSS and 11 ms (Node 24), and an application often has it installed (a
 * dependency of a dependency) without any SDK. The registry is
 * {@link REGISTRY} on `globalThis`, created by the first registration
 * through any copy of the API 1.x (and kept after `disable()`); seen here
 * on the next call, as {@link ProteanTracing.refresh} is called before each
 * pass and request.
 */
export function otelApi(): OtelApi | undefined {
  if (loaded === undefined) {
    if (!(REGISTRY in globalThis)) return undefined;
    try {
      loaded = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/**
 * The key of the global registry of `@opentelemetry/api` 1.x, this
 * package's peer range (`opentelemetry.js.api.<major>`): a copy of another
 * major keeps its own, which a 1.x copy would not read either.
 */
const REGISTRY = Symbol.for('opentelemetry.js.api.1');
