import { PASS_SPAN_NAME, tracing } from '@protean/core';
import type { RecentPass, RecentPassesView, RecentPassSpan, RecentPassTrigger } from './RecentPass.js';

/** Seconds and nanoseconds, the OpenTelemetry SDK's time. */
export type SpanTime = readonly [number, number];

/** The ids of a span, as `spanContext()` gives them. */
export interface RecordedSpanContext {
  readonly traceId: string;
  readonly spanId: string;
}

/** A span as the recorder sees it when it starts: the SDK's `Span`. */
export interface StartedSpan {
  readonly name: string;
  spanContext(): RecordedSpanContext;
}

/** An ended span as the recorder reads it: the parts of the OpenTelemetry SDK's `ReadableSpan` it uses. */
export interface RecordedSpan extends StartedSpan {
  readonly parentSpanContext?: RecordedSpanContext | undefined;
  readonly startTime: SpanTime;
  readonly endTime: SpanTime;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly links: readonly { readonly context: RecordedSpanContext; readonly attributes?: Readonly<Record<string, unknown>> | undefined }[];
  readonly status: { readonly code: number; readonly message?: string | undefined };
}

/** Options of {@link RecentPassesRecorder}. */
export interface RecentPassesRecorderOptions {
  /** How many passes to keep, the oldest dropped first (default 50). */
  readonly passes?: number;
  /** How many child spans to keep per pass, the rest counted (default 100). */
  readonly spansPerPass?: number;
}

/** Passes begun and not yet ended that the recorder follows at most; a pass span never ended is forgotten past it. */
const OPEN_PASS_LIMIT = 1_000;

/**
 * An OpenTelemetry `SpanProcessor` keeping, in process, the last passes
 * (`protean.pass` spans) with their child spans (the `@protean/client`
 * requests made with the pass's `ctx.signal`) and the triggers their links
 * carry: what the status page's waterfall shows, with no collector. Add it
 * to the tracer provider's `spanProcessors` beside any exporter and give it
 * to `instrumentContainer(container, { statusPage: true, recentPasses })`.
 *
 * Easy to get wrong: only direct children of a pass are kept, and only
 * while the pass is followed (begun, or among the kept passes); a child that
 * ends after its pass is added to it then. Spans outside passes (events,
 * takeovers, informer lists) are not kept: the passes' links stand for them.
 */
export class RecentPassesRecorder {
  readonly limit: number;
  readonly spansPerPass: number;
  /** Passes begun, by span id: the children that ended so far, and how many were past the bound. */
  private readonly open = new Map<string, { spans: RecordedSpan[]; dropped: number }>();
  /** Kept passes by span id, oldest first. */
  private readonly kept = new Map<string, { pass: RecentPass; spans: RecentPassSpan[]; dropped: number; startMs: number }>();

  constructor(options: RecentPassesRecorderOptions = {}) {
    this.limit = positive(options.passes ?? 50, 'passes');
    this.spansPerPass = positive(options.spansPerPass ?? 100, 'spansPerPass');
  }

  onStart(span: StartedSpan, _parentContext?: unknown): void {
    if (span.name !== PASS_SPAN_NAME) return;
    if (this.open.size >= OPEN_PASS_LIMIT) this.open.delete(this.open.keys().next().value as string);
    this.open.set(span.spanContext().spanId, { spans: [], dropped: 0 });
  }

  onEnd(span: RecordedSpan): void {
    const { spanId } = span.spanContext();
    if (span.name === PASS_SPAN_NAME) {
      const children = this.open.get(spanId) ?? { spans: [], dropped: 0 };
      this.open.delete(spanId);
      this.keep(span, children.spans, children.dropped);
      return;
    }
    const parent = span.parentSpanContext?.spanId;
    if (parent === undefined) return;
    const open = this.open.get(parent);
    if (open !== undefined) {
      if (open.spans.length < this.spansPerPass) open.spans.push(span);
      else open.dropped++;
      return;
    }
    const kept = this.kept.get(parent);
    if (kept === undefined) return;
    if (kept.spans.length < this.spansPerPass) kept.spans.push(childOf(span, kept.startMs));
    else kept.dropped++;
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    this.open.clear();
    this.kept.clear();
    return Promise.resolve();
  }

  /** The kept passes, newest first, each with its child spans by start time. */
  passes(): RecentPass[] {
    return [...this.kept.values()].reverse().map(({ pass, spans, dropped }) => ({
      ...pass,
      spans: [...spans].sort((a, b) => a.offsetMs - b.offsetMs),
      spansDropped: dropped,
    }));
  }

  /** What the status page shows: whether tracing is on, and {@link passes}. */
  view(): RecentPassesView {
    return { tracing: tracing.refresh(), limit: this.limit, passes: this.passes() };
  }

  private keep(span: RecordedSpan, children: readonly RecordedSpan[], dropped: number): void {
    const startMs = ms(span.startTime);
    const a = span.attributes;
    const { traceId, spanId } = span.spanContext();
    const pass: RecentPass = {
      traceId,
      spanId,
      parent: text(a['protean.parent.gvr']) ?? '',
      namespace: text(a['protean.instance.namespace']) ?? '',
      name: text(a['protean.instance.name']) ?? '',
      ...defined('attempt', typeof a['protean.pass.attempt'] === 'number' ? a['protean.pass.attempt'] : undefined),
      ...defined('outcome', text(a['protean.pass.outcome'])),
      ...defined('requeue', typeof a['protean.pass.requeue'] === 'boolean' ? a['protean.pass.requeue'] : undefined),
      startedAt: new Date(startMs).toISOString(),
      durationMs: ms(span.endTime) - startMs,
      ...defined('error', errorOf(span)),
      watches: strings(a['protean.pass.watches']) ?? [],
      triggers: span.links.map(triggerOf),
      triggersDropped: typeof a['protean.pass.triggers_dropped'] === 'number' ? a['protean.pass.triggers_dropped'] : 0,
      spans: [],
      spansDropped: 0,
    };
    this.kept.set(pass.spanId, { pass, spans: children.map((c) => childOf(c, startMs)), dropped, startMs });
    if (this.kept.size > this.limit) this.kept.delete(this.kept.keys().next().value as string);
  }
}

function triggerOf(link: RecordedSpan['links'][number]): RecentPassTrigger {
  const a = link.attributes ?? {};
  return {
    source: text(a['protean.trigger.source']) ?? 'unknown',
    ...defined('gvr', text(a['protean.trigger.gvr'])),
    ...defined('namespace', text(a['protean.trigger.namespace'])),
    ...defined('name', text(a['protean.trigger.name'])),
    ...defined('type', text(a['protean.trigger.type'])),
    ...defined('resourceVersion', text(a['protean.trigger.resource_version'])),
    ...defined('watches', strings(a['protean.trigger.watches'])),
    traceId: link.context.traceId,
    spanId: link.context.spanId,
  };
}

function childOf(span: RecordedSpan, passStartMs: number): RecentPassSpan {
  const startMs = ms(span.startTime);
  return {
    name: span.name,
    spanId: span.spanContext().spanId,
    offsetMs: startMs - passStartMs,
    durationMs: ms(span.endTime) - startMs,
    ...defined('error', errorOf(span)),
  };
}

/** The status message of a span that ended in error (`SpanStatusCode.ERROR`). */
function errorOf(span: RecordedSpan): string | undefined {
  return span.status.code === 2 ? (span.status.message ?? 'error') : undefined;
}

function ms(time: SpanTime): number {
  return time[0] * 1_000 + time[1] / 1_000_000;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function positive(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`RecentPassesRecorder: ${what} must be a positive integer, got ${value}`);
  return value;
}
