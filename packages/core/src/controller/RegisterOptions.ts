import type { GroupVersionResource } from '../gvr.js';
import type { IndexFunc, ObjectTransform } from '../informer.js';

/** One GVR a registration caches as full objects, with its own trim. */
export interface CacheRequest {
  readonly gvr: GroupVersionResource;
  /** Drops more of each object than the default trim (managedFields, the last-applied annotation). */
  readonly transform?: ObjectTransform;
  /** Secondary indexes for `ctx.list(gvr, { index, value })` (`owner` is built in). */
  readonly indexes?: Readonly<Record<string, IndexFunc>>;
}

/** Options of `DynamicController.register`. */
export interface RegisterOptions {
  /**
   * GVRs whose full objects the handler reads through `ctx.get` and
   * `ctx.list` (the parent's own, its children's): while the registration
   * lasts, the one informer of each keeps full objects (trimmed) instead of
   * metadata only, and serves both routing and reads. Registering waits for
   * them to sync; deregistering lets each go back to metadata only when no
   * other registration caches it. Default: none (metadata only, nothing
   * more to pay).
   *
   * Easy to get wrong: an informer of a cached GVR lists and watches every
   * object of it in the informer's scope, not only the children the
   * handler declares; its memory is that of the full objects.
   */
  readonly cache?: readonly (GroupVersionResource | CacheRequest)[];
}
