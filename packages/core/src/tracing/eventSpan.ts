import type { EnqueueSource } from '../contracts/WorkQueue.js';
import type { WatchEvent } from '../events.js';
import { gvrKey } from '../gvr.js';
import type { TraceSpanContext } from './otelApi.js';
import type { TriggerEvent } from './PassTrigger.js';
import { tracing } from './tracing.js';

/** The span name of an event that enqueued instances (routed child events and parent events). */
export const EVENT_SPAN_NAME = 'protean.event';

/**
 * Records, while tracing is on, one ended span for an event that enqueues
 * `instances` instances, which their passes link to; `undefined` when off.
 */
export function recordEventSpan(event: WatchEvent, source: EnqueueSource, instances: number): TraceSpanContext | undefined {
  const span = tracing.startSpan(EVENT_SPAN_NAME, {
    parent: 'root',
    attributes: {
      'protean.event.gvr': gvrKey(event.gvr),
      'protean.event.namespace': event.namespace,
      'protean.event.name': event.name,
      'protean.event.type': event.type,
      'protean.event.resource_version': event.resourceVersion,
      'protean.event.source': source,
      'protean.event.instances': instances,
    },
  });
  if (span === undefined) return undefined;
  span.end();
  return span.spanContext();
}

/** The part of an event a trigger keeps. */
export function triggerEventOf(event: WatchEvent): TriggerEvent {
  return { gvr: event.gvr, namespace: event.namespace, name: event.name, type: event.type, resourceVersion: event.resourceVersion };
}
