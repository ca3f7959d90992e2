import type { ObjectReads } from './ObjectReads.js';
import type { EnqueueSource, RateLimitingQueue, WatchCoordinator } from '../contracts/index.js';
import type { WatchEvent } from '../events.js';
import { gvrKey, type ObjectIdentifiers } from '../gvr.js';
import type { Logger } from '../logger.js';
import { recordEventSpan, triggerEventOf } from '../tracing/eventSpan.js';
import { tracing } from '../tracing/tracing.js';
import type { ControllerObserver } from './ControllerObserver.js';
import type { ParentRegistry } from './ParentRegistry.js';
import { PassCancelledError } from './PassCancelledError.js';
import type { TriggerLog } from './TriggerLog.js';
import type { WorkerActivity } from './WorkerActivity.js';
import { workItemKey } from './workItemKey.js';

/** What {@link ParentEvents} works with; all of it owned by the controller. */
export interface ParentEventsDeps {
  readonly parents: ParentRegistry;
  readonly queue: RateLimitingQueue<ObjectIdentifiers>;
  readonly activity: WorkerActivity;
  readonly log: Logger;
  readonly notify: (call: (observer: ControllerObserver) => void) => void;
  /** Where each enqueue is recorded while tracing is on. */
  readonly triggers: TriggerLog;
}

/**
 * Receives every event of the watch manager ({@link handle} is its
 * `onEvent`). Parent events are enqueued, including initial-list adds (an
 * existing instance's first reconcile) and resync replays; other updates
 * only when `generation` changed or is not tracked by the resource. Every
 * event, parent or not, is also handed to the watch coordinator, since one
 * GVR can be both (the coordinator ignores initial-list and resync events).
 */
export class ParentEvents {
  /** Set right after construction: the coordinator is built over the watch manager, which needs {@link handle} first. */
  coordinator!: WatchCoordinator;
  /** Set right after construction: cached reads waiting for the cache to reach a write are woken by events. */
  reads: ObjectReads | undefined;

  constructor(private readonly deps: ParentEventsDeps) {}

  readonly handle = (event: WatchEvent): void => {
    try {
      if (this.deps.parents.has(event.gvr)) this.handleParentEvent(event);
      this.coordinator.routeEvent(event);
      this.reads?.onEvent(event);
    } catch (err) {
      // Never let a routing bug break the informer that delivered the event.
      this.deps.log.error({ err, gvr: gvrKey(event.gvr), instance: `${event.namespace}/${event.name}` }, 'event handling failed');
    }
  };

  private handleParentEvent(event: WatchEvent): void {
    this.deps.notify((o) => o.onParentEvent?.(event.gvr, event.type));
    if (event.type === 'update' && !updateNeedsReconcile(event)) return;
    if (event.type === 'delete') this.forgetDeleted(event);
    const item = { gvr: event.gvr, namespace: event.namespace, name: event.name };
    const source = sourceOf(event);
    this.deps.queue.add(item, source);
    if (tracing.enabled) {
      this.deps.triggers.record(workItemKey(item), { source, event: triggerEventOf(event), span: recordEventSpan(event, source, 1) });
    }
  }

  /**
   * A deleted instance (a delete event or a relist tombstone) loses its
   * watch coordinator state at once unless its handler is running; then the
   * pass is cut off (its `ctx.signal` aborts with a {@link PassCancelledError},
   * reason `deleted`) and the worker forgets the instance when the handler
   * returns, since it is no longer cached. Either way its handler still runs
   * once more, to see it gone.
   */
  private forgetDeleted(event: WatchEvent): void {
    const item: ObjectIdentifiers = { gvr: event.gvr, namespace: event.namespace, name: event.name };
    // kro-diff: a delete event cuts off the instance's pass in flight (ctx.signal aborts); kro lets it run on.
    const key = workItemKey(item);
    const { activity } = this.deps;
    if (activity.cancel(key, new PassCancelledError('deleted', `instance ${key} was deleted`))) return;
    if (activity.isInFlight(item)) return;
    this.coordinator.removeInstance(event.gvr, item);
  }
}

/** Why a parent event enqueues its instance: a replay (initial list, resync) or a change seen live. */
function sourceOf(event: WatchEvent): EnqueueSource {
  if (event.initialList === true) return 'initial-list';
  if (event.resync === true) return 'resync';
  if (event.takeover === true) return 'takeover';
  return 'live';
}

/** Status and metadata-only changes keep the generation and need no reconcile. */
function updateNeedsReconcile(update: WatchEvent): boolean {
  // kro-diff: a resync re-reconciles every parent, as client-go controllers do (and brings back an item dropped
  // after queueMaxRetries); kro filters resyncs by generation too.
  if (update.resync === true) return true;
  // A resource that does not track generation (ConfigMap-like) has no other way to show a spec change.
  if (update.generation === undefined || update.oldGeneration === undefined) return true;
  return update.generation !== update.oldGeneration;
}
