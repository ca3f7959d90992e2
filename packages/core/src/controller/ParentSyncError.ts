import { gvrKey, type GroupVersionResource } from '../gvr.js';

/**
 * `DynamicController.register` rejects with this when the parent GVR's
 * informer cannot be started or does not sync (a missing CRD, RBAC, a
 * server that refuses connections or whose certificate does not verify, a
 * sync timeout). `cause` is the watch manager's error; with
 * `@protean/watch-manager` that is a `WatchError` naming the server URL and
 * the last failure, raised at once on 401/403/404, after `failFastMs` (3 s)
 * when every attempt is refused or fails TLS verification, else at the sync
 * deadline (30 s). Also when an informer of a GVR the registration caches
 * as full objects (`cache`) does not sync (`cached`). The handler is not left registered.
 */
export class ParentSyncError extends Error {
  override readonly name = 'ParentSyncError';
  readonly gvr: GroupVersionResource;
  /** Set when the informer that failed is that of a GVR the registration caches (`cache` option), not the parent's. */
  readonly cached: GroupVersionResource | undefined;

  constructor(gvr: GroupVersionResource, cause: unknown, cached?: GroupVersionResource) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const what = cached === undefined ? 'its informer' : `the object cache of ${gvrKey(cached)}`;
    super(`cannot register parent ${gvrKey(gvr)}: ${what} did not sync: ${detail}`, { cause });
    this.gvr = gvr;
    this.cached = cached;
  }
}
