import type { InstanceWatcher } from './contracts/index.js';
import type { GroupVersionResource, NamespacedName } from './gvr.js';
import type { Logger } from './logger.js';

/** What a {@link Handler} gets besides the instance it reconciles. */
export interface ReconcileContext {
  /**
   * Aborts when the controller shuts down or when the pass runs longer than
   * the config's `reconcileTimeoutMs` (reason: a `ReconcileTimeoutError`);
   * pass it to every API call.
   */
  readonly signal: AbortSignal;
  /** A child logger carrying the parent GVR and the instance. */
  readonly logger: Logger;
  /** The parent resource type this instance belongs to. */
  readonly gvr: GroupVersionResource;
  /**
   * This instance's watcher (`coordinator().forInstance(gvr, req)`), settled
   * for you: a cycle the handler leaves open is committed (`done(true)`) when
   * it succeeds or rejects with a requeue signal, and discarded
   * (`done(false)`) when it fails. Call `done` yourself to decide otherwise.
   */
  readonly watcher: InstanceWatcher;
}

/**
 * Reconciles one instance of a registered parent GVR (seed: `Handler`).
 * Resolve for success; reject with a requeue signal (`requeue.*`) to steer
 * the retry, or with any other error to be retried with backoff. A handler
 * must fetch the instance itself: it may have been deleted (a NotFound error
 * is treated as success).
 */
export type Handler = (req: NamespacedName, ctx: ReconcileContext) => Promise<void>;
