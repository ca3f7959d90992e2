import type { GroupVersionResource } from '@protean/core';
import { addFinalizer, hasFinalizer, isBeingDeleted, removeFinalizer } from './finalizers.js';
import type { KubeClient } from './KubeClient.js';
import type { WriteOptions } from './KubeClientOptions.js';
import type { KubeObject } from './KubeObject.js';

/** Options of {@link reconcileFinalizer}. */
export interface ReconcileFinalizerOptions<T> extends WriteOptions {
  /** The finalizer this controller owns, e.g. `guide.protean.dev/cleanup` (a qualified name). */
  readonly finalizer: string;
  /**
   * Releases what the object holds outside Kubernetes' garbage collection
   * (external resources, objects in other namespaces, ...). Runs only for
   * an object being deleted that still has the finalizer; when it rejects,
   * the finalizer stays and the pass fails (and is retried).
   * Must be idempotent: a retry runs it again.
   */
  readonly cleanup: (object: T) => Promise<void>;
}

/** What {@link reconcileFinalizer} found: go on reconciling `object`, or stop: it is being deleted. */
export type FinalizerStep<T> =
  { readonly deleting: false; /** The object, now carrying the finalizer. */ readonly object: T } | { readonly deleting: true };

/**
 * The one place a handler deals with deletion (controller-runtime's
 * finalizer pattern, kro's instance finalizer):
 *
 * - the object is not being deleted: makes sure it carries `finalizer`
 *   and resolves `{ deleting: false, object }`; reconcile as usual;
 * - it is being deleted (`deletionTimestamp` set) and still carries
 *   `finalizer`: runs `cleanup`, then removes the finalizer (the API server
 *   then completes the deletion), and resolves `{ deleting: true }`;
 * - it is being deleted without the finalizer: resolves `{ deleting: true }`.
 *
 * ```ts
 * const step = await reconcileFinalizer(client, backups, backup, { finalizer: FINALIZER, cleanup: removeBucket, signal: ctx.signal });
 * if (step.deleting) return;
 * ```
 *
 * Easy to get wrong: on `deleting: true`, return without writing to the
 * object or creating children for it; the finalizer is gone and the
 * object may be too.
 */
export async function reconcileFinalizer<T extends KubeObject>(
  client: KubeClient,
  gvr: GroupVersionResource,
  object: T,
  options: ReconcileFinalizerOptions<T>,
): Promise<FinalizerStep<T>> {
  const { finalizer, cleanup, ...write } = options;
  if (!isBeingDeleted(object)) {
    const stored = hasFinalizer(object, finalizer) ? object : await addFinalizer<T>(client, gvr, object, finalizer, write);
    return { deleting: false, object: stored };
  }
  if (hasFinalizer(object, finalizer)) {
    await cleanup(object);
    await removeFinalizer(client, gvr, object, finalizer, write);
  }
  return { deleting: true };
}
