import { apiStatusOf } from './apiStatus.js';
import { causeOfType } from './causeChain.js';
import { gvrKey, type GroupVersionResource } from './gvr.js';
import { UNSERVED_RESOURCE_HINT } from './unservedResourceHint.js';

/** What the refusal was about, beside the GVR. */
export interface KindRefusalDetails {
  /** The namespace the refused request was limited to; undefined: all namespaces or a cluster-scoped kind. */
  readonly namespace?: string | undefined;
  /** The HTTP status the server answered (404, 403). */
  readonly status?: number | undefined;
  /** The API server URL, when known. */
  readonly server?: string | undefined;
  readonly cause?: unknown;
}

/**
 * A kind that cannot be watched now, for a reason that a change in the
 * cluster ends: its resource is not served (a CRD not installed yet, or
 * deleted), or this controller may not list or watch it (RBAC). It says
 * nothing about any object: an instance whose pass fails with one is
 * never taken for deleted. The controller parks such an instance on the
 * kind (its watch declarations are kept, so it routes as soon as the
 * kind is back) and requeues it when the kind becomes available,
 * without counting a failed pass or growing its backoff.
 *
 * Thrown by the watch manager (`ensureWatch`), so `ctx.watcher.watch`
 * and `applyOwned` fail with one as the `cause` of their error; test for
 * it with {@link kindUnavailableOf}, which follows `cause` chains.
 */
export class KindUnavailableError extends Error {
  override readonly name: string = 'KindUnavailableError';
  readonly gvr: GroupVersionResource;
  readonly namespace: string | undefined;
  /** `NotFound` (not served) or `Forbidden`: the reason a `WatchError` of the same refusal carries. */
  readonly reason: 'NotFound' | 'Forbidden';
  readonly status: number | undefined;
  readonly server: string | undefined;

  constructor(gvr: GroupVersionResource, reason: 'NotFound' | 'Forbidden', message: string, details: KindRefusalDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.gvr = Object.freeze({ group: gvr.group, version: gvr.version, resource: gvr.resource });
    this.reason = reason;
    this.namespace = details.namespace;
    this.status = details.status;
    this.server = details.server;
  }

  /** `group/version/resource`, the kind's key. */
  get kind(): string {
    return gvrKey(this.gvr);
  }
}

/** The API server does not serve the GVR (404 on its collection): a CRD not installed or deleted, an API not enabled. */
export class KindNotServedError extends KindUnavailableError {
  override readonly name: string = 'KindNotServedError';

  constructor(gvr: GroupVersionResource, details: KindRefusalDetails = {}) {
    super(
      gvr,
      'NotFound',
      `${gvrKey(gvr)} is not served${answered(details)} (${UNSERVED_RESOURCE_HINT}); waiting for it to be served`,
      details,
    );
  }
}

/** The API server refused to list or watch the GVR (403): RBAC does not grant `verb`. */
export class WatchForbiddenError extends KindUnavailableError {
  override readonly name: string = 'WatchForbiddenError';
  /** The refused verb: `list` or `watch`. */
  readonly verb: string;

  constructor(gvr: GroupVersionResource, verb: string, details: KindRefusalDetails = {}) {
    const where = details.namespace === undefined ? 'at the cluster scope' : `in namespace ${JSON.stringify(details.namespace)}`;
    super(
      gvr,
      'Forbidden',
      `forbidden to ${verb} ${gvr.resource} (group ${JSON.stringify(gvr.group)}, version ${gvr.version}) ${where}${answered(details)}; ` +
        `waiting for RBAC to grant "${verb}"`,
      details,
    );
    this.verb = verb;
  }
}

/** `: the API server at URL answered 403: its message`, from what is known of the answer. */
function answered(details: KindRefusalDetails): string {
  if (details.status === undefined) return '';
  const at = details.server === undefined ? '' : ` at ${details.server}`;
  const said = apiStatusOf(details.cause)?.message;
  return `: the API server${at} answered ${details.status}${said === undefined ? '' : `: ${said.length > 200 ? `${said.slice(0, 200)}…` : said}`}`;
}

/** The {@link KindUnavailableError} that `err` is or carries along its `cause` chain, if any. */
export function kindUnavailableOf(err: unknown): KindUnavailableError | undefined {
  return causeOfType(err, KindUnavailableError);
}
