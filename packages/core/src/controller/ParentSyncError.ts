import { gvrKey, type GroupVersionResource } from '../gvr.js';

/**
 * `DynamicController.register` rejects with this when the parent GVR's
 * informer cannot be started or does not sync (a missing CRD, RBAC, a sync
 * timeout). `cause` is the watch manager's error. The handler is not left
 * registered.
 */
export class ParentSyncError extends Error {
  override readonly name = 'ParentSyncError';
  readonly gvr: GroupVersionResource;

  constructor(gvr: GroupVersionResource, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`cannot register parent ${gvrKey(gvr)}: its informer did not sync: ${detail}`, { cause });
    this.gvr = gvr;
  }
}
