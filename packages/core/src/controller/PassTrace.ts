import type { InstancePass, WatchRequest } from '../contracts/index.js';
import { gvrKey, type GroupVersionResource, type ObjectIdentifiers } from '../gvr.js';
import type { TraceLink, TraceSpan, TraceSpanContext } from '../tracing/otelApi.js';
import type { PassTrigger, PassTriggers } from '../tracing/PassTrigger.js';
import { tracing } from '../tracing/tracing.js';
import type { ReconcileOutcome } from './ControllerObserver.js';

/** The span name of a pass. */
export const PASS_SPAN_NAME = 'protean.pass';

/** A pass's trace and span ids, as the log lines and the status page show them. */
export interface PassTraceIds {
  readonly traceId: string;
  readonly spanId: string;
}

/**
 * The span of one pass while tracing is on: its attributes (parent GVR,
 * instance, attempt, the watches it declared, outcome, requeue) and a link
 * to every trigger recorded since the instance's last pass.
 */
export class PassTrace {
  readonly ids: PassTraceIds;
  private readonly declared: string[] = [];

  private constructor(readonly span: TraceSpan) {
    const { traceId, spanId } = span.spanContext();
    this.ids = { traceId, spanId };
  }

  /** The pass's trace, or `undefined` while tracing is off (re-read here: see `ProteanTracing.refresh`). */
  static begin(parent: GroupVersionResource, item: ObjectIdentifiers, attempt: number, triggers: PassTriggers): PassTrace | undefined {
    if (!tracing.refresh()) return undefined;
    const span = tracing.startSpan(PASS_SPAN_NAME, {
      parent: 'root',
      attributes: {
        'protean.parent.gvr': gvrKey(parent),
        'protean.instance.namespace': item.namespace,
        'protean.instance.name': item.name,
        'protean.pass.attempt': attempt,
        'protean.pass.sources': [...new Set(triggers.triggers.map((t) => t.source))],
        'protean.pass.triggers': triggers.triggers.length,
        'protean.pass.triggers_dropped': triggers.dropped,
      },
      links: triggers.triggers.flatMap(linkOf),
    });
    return span === undefined ? undefined : new PassTrace(span);
  }

  /** The span's context, for a trigger of the next pass (`requeue`, `retry`). */
  context(): TraceSpanContext {
    return this.span.spanContext();
  }

  /** `pass` recording what the handler declares on it, for the span. */
  watching(pass: InstancePass): InstancePass {
    const declared = this.declared;
    return {
      watch: (req) => {
        declared.push(describeRequest(req));
        return pass.watch(req);
      },
      done: (commit) => pass.done(commit),
      end: (commit) => pass.end(commit),
    };
  }

  /** The pass asked to run again, after `delayMs` when given. */
  requeued(delayMs?: number): void {
    this.span.setAttribute('protean.pass.requeue', true);
    if (delayMs !== undefined) this.span.setAttribute('protean.pass.requeue_after_ms', delayMs);
  }

  end(outcome: ReconcileOutcome, err?: unknown): void {
    this.span.setAttribute('protean.pass.outcome', outcome);
    this.span.setAttribute('protean.pass.watches', this.declared);
    if (outcome === 'error' || outcome === 'dropped') {
      this.span.setAttribute('protean.pass.requeue', outcome === 'error');
      tracing.fail(this.span, err);
    } else if (outcome !== 'requeue' && outcome !== 'requeue_after') {
      this.span.setAttribute('protean.pass.requeue', false);
    }
    this.span.end();
  }
}

function linkOf(trigger: PassTrigger): TraceLink[] {
  if (trigger.span === undefined) return [];
  const event = trigger.event;
  return [
    {
      context: trigger.span,
      attributes: {
        'protean.trigger.source': trigger.source,
        'protean.trigger.gvr': event === undefined ? undefined : gvrKey(event.gvr),
        'protean.trigger.namespace': event?.namespace,
        'protean.trigger.name': event?.name,
        'protean.trigger.type': event?.type,
        'protean.trigger.resource_version': event?.resourceVersion,
        'protean.trigger.watches': trigger.watches,
      },
    },
  ];
}

/** `config=configmaps default/shop-env` or `pods=pods default app=shop`. */
function describeRequest(req: WatchRequest): string {
  const where = req.namespace === undefined || req.namespace === '' ? '' : `${req.namespace}`;
  const what =
    req.selector === undefined
      ? `${where === '' ? '' : `${where}/`}${req.name ?? ''}`
      : `${where === '' ? '*' : where} ${req.selector.toString()}`;
  return `${req.nodeId}=${req.gvr.resource}${req.gvr.group === '' ? '' : `.${req.gvr.group}`} ${what}`;
}
