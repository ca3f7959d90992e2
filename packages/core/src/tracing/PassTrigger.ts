import type { EnqueueSource } from '../contracts/WorkQueue.js';
import type { EventType } from '../events.js';
import type { GroupVersionResource } from '../gvr.js';
import type { TraceSpanContext } from './otelApi.js';

/** The event behind a {@link PassTrigger}. */
export interface TriggerEvent {
  readonly gvr: GroupVersionResource;
  readonly namespace: string;
  readonly name: string;
  readonly type: EventType;
  readonly resourceVersion?: string | undefined;
}

/**
 * Why an instance was enqueued, kept (while tracing is on) until its next
 * pass, which links to {@link span}: an event routed to it (`live`, with the
 * node ids of the watches it matched), an event of the instance itself
 * (`live`, `initial-list`, `resync`; {@link watches} absent), a leadership
 * term's takeover, or the previous pass asking again (`requeue`) or failing
 * (`retry`).
 */
export interface PassTrigger {
  readonly source: EnqueueSource;
  readonly event?: TriggerEvent | undefined;
  /** Node ids of the instance's watches the event matched; absent for the instance's own events. */
  readonly watches?: readonly string[] | undefined;
  /** The span to link to: the event's routing, the term's takeover, the previous pass. */
  readonly span?: TraceSpanContext | undefined;
}

/** The triggers of one pass: the last {@link PASS_TRIGGER_LIMIT}, and how many older ones were dropped. */
export interface PassTriggers {
  readonly triggers: readonly PassTrigger[];
  readonly dropped: number;
}

/** How many triggers an instance keeps between passes. */
export const PASS_TRIGGER_LIMIT = 32;
