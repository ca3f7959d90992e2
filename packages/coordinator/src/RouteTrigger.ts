import { gvrKey, type PassTrigger, type WatchEvent } from '@protean/core';
import { recordEventSpan, triggerEventOf } from '@protean/core/internal';
import type { InstanceState } from './InstanceState.js';
import type { WatchEntry } from './WatchEntry.js';

/**
 * The triggers of one routed event while tracing is on: one span for the
 * routing (which each instance's next pass links to) and, per instance, the
 * node ids of the watches the event matched.
 */
export class RouteTrigger {
  private readonly span;
  private readonly gvrKey: string;

  constructor(
    private readonly event: WatchEvent,
    instances: number,
  ) {
    this.span = recordEventSpan(event, 'live', instances);
    this.gvrKey = gvrKey(event.gvr);
  }

  /** What enqueued `state`. */
  for(state: InstanceState): PassTrigger {
    const watches: string[] = [];
    for (const entries of [state.committed, state.pending]) {
      for (const entry of entries.values()) if (this.matches(entry) && !watches.includes(entry.nodeId)) watches.push(entry.nodeId);
    }
    return { source: 'live', event: triggerEventOf(this.event), watches, span: this.span };
  }

  /** The routing indexes' rule for one entry. */
  private matches(entry: WatchEntry): boolean {
    const event = this.event;
    if (entry.gvrKey !== this.gvrKey) return false;
    if (entry.selector === undefined) return entry.namespace === event.namespace && entry.name === event.name;
    if (entry.namespace !== '' && entry.namespace !== event.namespace) return false;
    return entry.selector.matches(event.labels) || (event.oldLabels !== undefined && entry.selector.matches(event.oldLabels));
  }
}
