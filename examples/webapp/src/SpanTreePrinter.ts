import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { PASS_SPAN_NAME } from '@protean/core';

/** Traces whose pass has not ended yet that are kept at most (a client span outside any pass starts one too). */
const MAX_OPEN_TRACES = 1_000;

/**
 * A span processor that prints each pass as a compact tree when its span
 * ends: the pass (parent, instance, outcome, duration), what triggered it
 * (the links' event, the watches it matched), then its child spans (the
 * client's requests). Spans of other traces (events, informers) are dropped.
 */
export class SpanTreePrinter implements SpanProcessor {
  private readonly open = new Map<string, ReadableSpan[]>();

  constructor(private readonly out: (line: string) => void) {}

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    const traceId = span.spanContext().traceId;
    if (span.name !== PASS_SPAN_NAME) {
      if (span.parentSpanContext === undefined) return;
      let children = this.open.get(traceId);
      if (children === undefined) {
        if (this.open.size >= MAX_OPEN_TRACES) this.open.delete(this.open.keys().next().value!);
        children = [];
        this.open.set(traceId, children);
      }
      children.push(span);
      return;
    }
    const children = this.open.get(traceId) ?? [];
    this.open.delete(traceId);
    for (const line of formatPassTree(span, children)) this.out(line);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    this.open.clear();
    return Promise.resolve();
  }
}

/** The lines of one pass: `pass <parent> <ns/name> <outcome> <ms> trace <id>`, `  ← <trigger>` per link, `  └ <span> <ms>` per child. */
export function formatPassTree(pass: ReadableSpan, children: readonly ReadableSpan[]): string[] {
  const a = pass.attributes;
  const lines = [
    `pass ${String(a['protean.parent.gvr'])} ${String(a['protean.instance.namespace'])}/${String(a['protean.instance.name'])}` +
      ` ${String(a['protean.pass.outcome'])} ${ms(pass)} trace ${pass.spanContext().traceId}`,
  ];
  for (const link of pass.links) {
    const l = link.attributes ?? {};
    const event =
      l['protean.trigger.name'] === undefined
        ? ''
        : ` ${String(l['protean.trigger.type'])} ${String(l['protean.trigger.gvr'])} ${String(l['protean.trigger.namespace'])}/${String(l['protean.trigger.name'])}`;
    const watches = Array.isArray(l['protean.trigger.watches']) ? ` [${l['protean.trigger.watches'].join(', ')}]` : '';
    lines.push(`  ← ${String(l['protean.trigger.source'])}${event}${watches}`);
  }
  const dropped = Number(a['protean.pass.triggers_dropped'] ?? 0);
  if (dropped > 0) lines.push(`  ← (${dropped} older triggers dropped)`);
  for (const child of [...children].sort((x, y) => hr(x.startTime) - hr(y.startTime))) {
    const status = child.attributes['http.response.status_code'];
    const target = child.attributes['protean.request.target'];
    // A client request reads `APPLY configmaps ns/name`, its verb and target; any other span by its name.
    const what = target === undefined ? child.name : `${String(child.attributes['protean.request.verb'])} ${String(target)}`;
    lines.push(`  └ ${what} ${ms(child)}${status === undefined ? '' : ` ${String(status)}`}`);
  }
  return lines;
}

function hr(time: readonly [number, number]): number {
  return time[0] * 1e3 + time[1] / 1e6;
}

function ms(span: ReadableSpan): string {
  return `${hr(span.duration).toFixed(1)} ms`;
}
