import { gvrKey, type GroupVersionResource } from '@protean/core';

/**
 * Why a {@link WatchError} was raised:
 * - `Unauthorized`: the server refused the list or watch (401) before the
 *   informer first synced (a 404 or 403 rejects with core's
 *   `KindNotServedError` or `WatchForbiddenError` instead);
 * - `NotFound` / `Forbidden`: not raised by `InformerWatchManager` any more;
 *   kept for watch managers that still do;
 * - `TlsVerificationFailed` / `ConnectionRefused`: every attempt of the
 *   informer failed that way for `failFastMs` before its first sync (the
 *   KubeConfig's CA or server name does not match the server's certificate;
 *   nothing listens at the server URL);
 * - `SyncTimeout`: the informer did not sync within `syncTimeoutMs`;
 * - `BackingOff`: the GVR failed recently and its failure window is open;
 * - `Released`: the owner released the watch while its `ensureWatch` waited;
 * - `Shutdown`: the watch manager was shut down;
 * - `InformerError`: the informer source threw while building the informer;
 * - `NotAllowed`: the GVR is outside the watch manager's `allowedResources`
 *   (a {@link ResourceNotAllowedError}); no informer was started.
 */
export type WatchErrorReason =
  | 'NotFound'
  | 'Forbidden'
  | 'Unauthorized'
  | 'TlsVerificationFailed'
  | 'ConnectionRefused'
  | 'SyncTimeout'
  | 'BackingOff'
  | 'Released'
  | 'Shutdown'
  | 'InformerError'
  | 'NotAllowed'
  /** `ensureObjects` with a transform other than the one the informer keeps its objects with. */
  | 'TransformConflict'
  /** `ensureObjects` of an informer whose source delivers metadata only (it dropped `ListWatchOptions.objects`). */
  | 'ObjectsNotDelivered'
  /** `ensureObjects` with an index whose name the informer indexes by another function. */
  | 'IndexConflict';

/**
 * The error `InformerWatchManager.ensureWatch` rejects with. Always names the GVR;
 * `status` carries the HTTP status when the server refused (404, 403, 401),
 * `server` the API server URL when the informer's failure carried it.
 * Easy to get wrong: a `BackingOff` error is a remembered earlier failure:
 * its `status` is that failure's, and its `cause` is core's
 * `RequeueNeededAfter` for the rest of the window, whose own `cause` is
 * that failure. A pass failing on it is queued again when the window
 * ends, without a failure counted.
 */
export class WatchError extends Error {
  override readonly name: string = 'WatchError';
  readonly gvr: GroupVersionResource;
  readonly reason: WatchErrorReason;
  readonly status: number | undefined;
  readonly server: string | undefined;

  constructor(
    gvr: GroupVersionResource,
    reason: WatchErrorReason,
    detail: string,
    options: { cause?: unknown; status?: number | undefined; server?: string | undefined } = {},
  ) {
    super(`watch of ${gvrKey(gvr)}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.gvr = gvr;
    this.reason = reason;
    this.status = options.status;
    this.server = options.server;
  }
}

/**
 * A watch of a GVR outside the watch manager's `allowedResources`
 * (`watchManagerModule({ kubeConfig, allowedResources })`): refused before
 * any informer or request exists. A `WatchError` with reason `NotAllowed`,
 * so it surfaces where other refusals do: `register` rejects with a
 * `ParentSyncError` caused by it, and an instance's `ctx.watcher.watch`
 * with a `WatchUnavailableError` caused by it, failing the pass.
 *
 * Easy to get wrong: it is not remembered as a sync failure (no
 * `BackingOff`), and it never reaches the API server, so RBAC never sees
 * the request: the allow-list is what keeps a dynamic controller's Role
 * finite.
 */
export class ResourceNotAllowedError extends WatchError {
  override readonly name: string = 'ResourceNotAllowedError';
  /** The patterns in force, as `group/version/resource` with `*`. */
  readonly allowedResources: readonly string[];

  constructor(gvr: GroupVersionResource, allowedResources: readonly string[]) {
    super(
      gvr,
      'NotAllowed',
      `refused: ${gvrKey(gvr)} matches none of allowedResources ${JSON.stringify(allowedResources)} (the watch manager option that bounds which GVRs this controller may watch)`,
    );
    this.allowedResources = allowedResources;
  }
}

/**
 * The refusal of full objects a source does not deliver: its list/watch
 * says it delivers metadata only, or its first object is a
 * `PartialObjectMetadata` (`why`). A source that wraps others must pass
 * `createListWatch`'s options on.
 */
export function objectsNotDelivered(gvr: GroupVersionResource, why: string): WatchError {
  return new WatchError(
    gvr,
    'ObjectsNotDelivered',
    `full objects were asked for, but the informer source delivers metadata only (${why}); a source that wraps or dispatches to others must pass createListWatch's options (ListWatchOptions.objects) on`,
  );
}
