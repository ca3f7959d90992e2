import {
  otelApi,
  type OtelApi,
  type OtelTracer,
  type TraceAttributes,
  type TraceAttributeValue,
  type TraceLink,
  type TraceSpan,
} from './otelApi.js';

/** Where a new span hangs: a span, the pass span bound to a signal (see {@link ProteanTracing.bindSignal}), or `'root'`. */
export type SpanParent = TraceSpan | AbortSignal | 'root';

/** Options of {@link ProteanTracing.startSpan}. */
export interface StartSpanOptions {
  readonly attributes?: TraceAttributes;
  readonly links?: readonly TraceLink[];
  /** Default: the active context's span, if any (with a context manager registered), else a new trace. */
  readonly parent?: SpanParent | undefined;
  /** `client` for a request to the API server; default `internal`. */
  readonly kind?: 'internal' | 'client';
}

/** The instrumentation scope of every Protean span. */
export const TRACER_NAME = 'protean';

/**
 * Protean's seam to OpenTelemetry. `@opentelemetry/api` is an optional peer
 * dependency: without it, or without an SDK's tracer provider registered,
 * {@link enabled} is false, {@link startSpan} returns `undefined` and
 * nothing is recorded. The one instance is {@link tracing}.
 *
 * Easy to get wrong: {@link enabled} is re-read by {@link refresh} only,
 * which the controller calls at start and before each pass, the client
 * before each request and the informers before each list and watch; an SDK
 * registered later is seen from then on. Event routing reads the flag only.
 */
export class ProteanTracing {
  /** True while an SDK's tracer provider is registered (as of the last {@link refresh}). */
  enabled = false;
  private tracer: OtelTracer | undefined;
  private seenProvider: unknown;
  private readonly passSpans = new WeakMap<AbortSignal, TraceSpan>();

  /** Re-reads whether a tracer provider is registered; cheap when nothing changed. */
  refresh(): boolean {
    const api = otelApi();
    if (api === undefined) return false;
    const provider = api.trace.getTracerProvider();
    const delegate = delegateOf(provider);
    if (delegate !== this.seenProvider) {
      this.seenProvider = delegate;
      this.enabled = !isNoop(delegate, api);
      this.tracer = this.enabled ? provider.getTracer(TRACER_NAME) : undefined;
    }
    return this.enabled;
  }

  /** A started span, or `undefined` when tracing is off; the caller ends it. */
  startSpan(name: string, options: StartSpanOptions = {}): TraceSpan | undefined {
    const api = otelApi();
    if (!this.enabled || api === undefined || this.tracer === undefined) return undefined;
    const parent = options.parent ?? api.context.active();
    let ctx: unknown;
    if (parent === 'root') ctx = api.ROOT_CONTEXT;
    else if (parent instanceof AbortSignal) {
      const span = this.passSpans.get(parent);
      ctx = span === undefined ? api.context.active() : api.trace.setSpan(api.ROOT_CONTEXT, span);
    } else if (isSpan(parent)) ctx = api.trace.setSpan(api.ROOT_CONTEXT, parent);
    else ctx = parent;
    return this.tracer.startSpan(
      name,
      {
        kind: options.kind === 'client' ? 2 : 0,
        ...(options.attributes === undefined ? {} : { attributes: definedAttributes(options.attributes) }),
        ...(options.links === undefined
          ? {}
          : { links: options.links.map((l) => ({ context: l.context, attributes: definedAttributes(l.attributes ?? {}) })) }),
      },
      ctx,
    );
  }

  /** Runs `fn` with `span` as the active span (seen by other instrumentation when a context manager is registered). */
  withSpan<T>(span: TraceSpan | undefined, fn: () => T): T {
    const api = otelApi();
    if (span === undefined || api === undefined) return fn();
    return api.context.with(api.trace.setSpan(api.context.active(), span), fn);
  }

  /** Writes the W3C `traceparent` (and whatever else the registered propagator writes) for `span` into `headers`. */
  inject(span: TraceSpan | undefined, headers: Record<string, string>): void {
    const api = otelApi();
    if (span === undefined || api === undefined) return;
    api.propagation.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), headers);
  }

  /** Makes `span` the parent of spans started with `parent: signal` (a pass's `ctx.signal`: the client's requests). */
  bindSignal(signal: AbortSignal, span: TraceSpan | undefined): void {
    if (span !== undefined) this.passSpans.set(signal, span);
  }

  /** Ends `span` with an error status and the error recorded. */
  fail(span: TraceSpan | undefined, err: unknown): void {
    if (span === undefined) return;
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: 2, message: err instanceof Error ? err.message : String(err) });
  }
}

/** Protean's one {@link ProteanTracing}. */
export const tracing = new ProteanTracing();

function delegateOf(provider: unknown): unknown {
  const getDelegate = (provider as { getDelegate?: () => unknown }).getDelegate;
  return typeof getDelegate === 'function' ? getDelegate.call(provider) : provider;
}

/** The API's no-op provider, from this copy of the API or another one (an application may load its ESM build). */
function isNoop(delegate: unknown, api: OtelApi): boolean {
  if (delegate === new api.ProxyTracerProvider().getDelegate()) return true;
  return (delegate as { constructor?: { name?: string } } | undefined)?.constructor?.name === 'NoopTracerProvider';
}

function isSpan(value: unknown): value is TraceSpan {
  return typeof (value as TraceSpan | undefined)?.spanContext === 'function';
}

function definedAttributes(attributes: TraceAttributes): Record<string, TraceAttributeValue> {
  const out: Record<string, TraceAttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}
