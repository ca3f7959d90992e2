import type { EventType } from '../events.js';
import type { GroupVersionResource } from '../gvr.js';

/**
 * How one pass of a work item ended:
 * - `success`: the handler resolved; the item's failure count is reset.
 * - `no_requeue`: the handler rejected with `NoRequeue`; forgotten.
 * - `requeue`: `RequeueNeeded`; added again at once, failure count kept.
 * - `requeue_after`: `RequeueNeededAfter`; failure count reset, added after its delay.
 * - `waiting`: the pass failed on a kind that cannot be watched now (a
 *   `KindUnavailableError`: not served, or forbidden); not a handler error,
 *   failure count reset, and the instance is requeued when the kind becomes
 *   available (the watch coordinator wakes it), or after a minute at the latest.
 * - `not_found`: the handler failed with a Kubernetes 404 and its instance is
 *   gone from the parent's cache; forgotten. (A 404 while the instance
 *   still exists is an `error`.)
 * - `error`: any other failure; retried with backoff.
 * - `cancelled`: the pass was cut off by normal operation (its parent GVR
 *   deregistered, its instance deleted, the controller stopping or its
 *   leadership term ending, a lost shard range; see `PassCancelledError`)
 *   and failed; forgotten, not retried, and not a handler error.
 * - `dropped`: not run (its parent GVR is no longer registered) or failed
 *   once more after `queueMaxRetries` retries; forgotten.
 */
export type ReconcileOutcome =
  'success' | 'requeue' | 'requeue_after' | 'no_requeue' | 'waiting' | 'not_found' | 'error' | 'cancelled' | 'dropped';

/**
 * Hooks a metrics adapter implements to watch a DynamicController work
 * (bound to `TOKENS.controllerObserver`). Every hook is optional.
 *
 * Easy to get wrong: hooks run synchronously on the controller's hot path
 * (inside the informer callback or the worker loop), so keep them cheap; an
 * exception thrown by a hook is logged and otherwise ignored.
 */
export interface ControllerObserver {
  /** After each work item, with the handler's duration (0 for a dropped item that never ran). */
  onReconcile?(gvr: GroupVersionResource, durationMs: number, outcome: ReconcileOutcome): void;
  /** For every event of a registered parent GVR, before the generation filter. */
  onParentEvent?(gvr: GroupVersionResource, type: EventType): void;
  /**
   * For every handler failure that is not a requeue signal, a wait for a kind, a NotFound of a deleted
   * instance nor a cut-off pass (`cancelled`);
   * `thrownSync` tells a handler that threw before returning its promise.
   */
  onHandlerError?(gvr: GroupVersionResource, err: unknown, thrownSync: boolean): void;
  /**
   * With a `Leadership`: `leading` true when this replica's workers start
   * (a term begins), false once they stopped and their handlers returned.
   * `identity` is the leadership's.
   */
  onLeadershipChange?(identity: string, leading: boolean): void;
  /**
   * A cached read (`ctx.get`, `ctx.list`) found the object cache behind a
   * write of the handler's after waiting `readYourWritesTimeoutMs`, and read
   * the object from the API server instead (once per object read).
   */
  onCacheReadFallback?(gvr: GroupVersionResource): void;
}

/** The default observer: ignores everything. */
export const noopControllerObserver: ControllerObserver = Object.freeze({});
