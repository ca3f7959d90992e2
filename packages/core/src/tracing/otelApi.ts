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
 * dependency of a dependency) without any SDK. Every copy of the API keeps its registry
 * on `globalThis` under the symbol `opentelemetry.js.api.<major>`, created
 * by the first registration through it (and kept after `disable()`); seen
 * here on the next call, as {@link ProteanTracing.refresh} is called before
 * each pass and request.
 */
export function otelApi(): OtelApi | undefined {
  if (loaded === undefined) {
    if (!hasOtelRegistry()) return undefined;
    try {
      loaded = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/** The prefix of the description of the symbol under which a copy of `@opentelemetry/api` keeps its global registry. */
const REGISTRY_PREFIX = 'opentelemetry.js.api.';

/** Whether any copy of `@opentelemetry/api`, of any major version, has a registry on `globalThis`. */
function hasOtelRegistry(): boolean {
  for (const symbol of Object.getOwnPropertySymbols(globalThis)) {
    if (symbol.description?.startsWith(REGISTRY_PREFIX) === true) return true;
  }
  return false;
}
