import type { GroupVersionResource } from './gvr.js';
import { KindNotServedError } from './KindUnavailableError.js';
import { parseStatusBody, retryAfterMsOf, type StatusBody } from './statusBody.js';
import { UNSERVED_RESOURCE_HINT } from './unservedResourceHint.js';

/** What a request was, for error messages: `PATCH configmaps default/a`. */
export interface RequestDescription {
  /** The HTTP method, or the verb where it says more (`APPLY`). */
  readonly method: string;
  /** The path and query asked for. */
  readonly path: string;
  /** `configmaps default/a`, `widgets.example.com w`. */
  readonly target: string;
  /** The resource asked for: a 404 that names no object carries core's `KindNotServedError` of it as its `cause`. */
  readonly gvr?: GroupVersionResource;
  /** The namespace of the request, if any. */
  readonly namespace?: string;
}

/** A response with an error status, as {@link KubeApiError.fromResponse} reads it (a transport's `KubeHttpResponse` is one). */
export interface ApiErrorResponse {
  /** The HTTP status. */
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body as text (a `Status` as JSON, or whatever a proxy sent). */
  readonly body: string;
}

/** What a {@link KubeApiError} holds, given whole (a subclass passes a message of its own). */
export interface KubeApiErrorFields {
  /** The error's message, whole. */
  readonly message: string;
  /** The HTTP method, or the verb where it says more (`APPLY`, `LIST`, `WATCH`). */
  readonly method: string;
  /** The path and query asked for; `''` (the default) where the error does not keep it. */
  readonly path?: string | undefined;
  /** The HTTP status; `undefined` when no answer came. */
  readonly status?: number | undefined;
  /** The `Status` reason; defaults to the body's. */
  readonly reason?: string | undefined;
  /** The server's message; defaults to the body's `message`, else `''`. */
  readonly serverMessage?: string | undefined;
  /** The server's `Status` body, when it sent one. */
  readonly body?: StatusBody | undefined;
  /** The wait the server asked for. */
  readonly retryAfterMs?: number | undefined;
  /** What went wrong underneath (a network failure, core's `KindNotServedError`). */
  readonly cause?: unknown;
}

/**
 * An error status from the API server, whichever `@protean/*` package sent
 * the request: `status` (HTTP), `reason` (`NotFound`, `Conflict`, ...) and
 * the server's `message`, with the whole `Status` body, any `Retry-After`,
 * and what the request was (`method`, `path`). `@protean/client` throws it
 * (and `ApplyConflictError`); the list/watch of `@protean/watch-manager`
 * (`KubernetesRequestError`), the lease calls of `@protean/leader-election`
 * and `@protean/sharding` (`LeaseRequestError`) and sharding's own reads
 * throw it or a subclass that adds what the request was about (the GVR, the
 * lease), so `instanceof KubeApiError` catches every one, and core's
 * {@link isNotFound}, {@link apiStatusOf} and {@link summarizeError} read
 * it.
 *
 * A 404 that names no object (the resource itself is not served: a CRD not
 * installed or not yet established, a kind or singular given as `resource`)
 * says so in the message, with the hint `DynamicController.register`
 * gives, and carries a {@link KindNotServedError} as its `cause` when the
 * request names its `gvr`: a handler failing with it waits for the kind
 * (outcome `waiting`) instead of being taken for deleted. So does the 403
 * of a create while the kind's CRD is being deleted.
 *
 * Easy to get wrong: `status` is `undefined` when no answer came, which
 * only the two subclasses that report every failure of their calls throw
 * (`KubernetesRequestError`, `LeaseRequestError`: `reason` then says why,
 * `NetworkError`, `ConnectionReset`, `Aborted`, ...); the client reports a
 * request without an answer as transport's `KubeTransportError` instead.
 * And a 409 is either a stale `resourceVersion` (reason `Conflict`, retry
 * after re-reading) or, for server-side apply, fields owned by another
 * manager (`ApplyConflictError`), which no retry fixes.
 */
export class KubeApiError extends Error {
  /** `KubeApiError`, or the subclass's name. */
  override readonly name: string = 'KubeApiError';
  /** The HTTP status (or a watch `ERROR` event's `code`); `undefined` when no answer came (see above). */
  readonly status: number | undefined;
  /** The `Status` reason (`NotFound`, `Conflict`, `Expired`, ...); without an answer, why none came. */
  readonly reason: string | undefined;
  /** The server's `Status.message` (or the start of a non-JSON body); `''` when no answer came. */
  readonly serverMessage: string;
  /** The server's `Status` body, when it sent one. */
  readonly body: StatusBody | undefined;
  /** The wait the server asked for (`Retry-After` or `details.retryAfterSeconds`). */
  readonly retryAfterMs: number | undefined;
  /** The HTTP method, or the verb where it says more (`APPLY`, `LIST`, `WATCH`). */
  readonly method: string;
  /** The path and query asked for; `''` where the error does not keep it (a watch's in-stream `ERROR` event names its GVR instead). */
  readonly path: string;

  /** The error from its fields; {@link KubeApiError.fromResponse} reads them from a response. */
  constructor(fields: KubeApiErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    const reason = fields.reason ?? fields.body?.reason;
    this.status = fields.status;
    this.reason = reason === '' ? undefined : reason;
    this.serverMessage = fields.serverMessage ?? fields.body?.message ?? '';
    this.body = fields.body;
    this.retryAfterMs = fields.retryAfterMs;
    this.method = fields.method;
    this.path = fields.path ?? '';
  }

  /** The error for a non-2xx response to `request`. */
  static fromResponse(request: RequestDescription, res: ApiErrorResponse): KubeApiError {
    const body = parseStatusBody(res.body);
    const text = res.body.trim();
    const message = body?.message ?? (text === '' ? 'no body' : text.slice(0, 300));
    return new KubeApiError(apiErrorFieldsOf(request, res.status, body, message, retryAfterMsOf(res.headers['retry-after'], body)));
  }
}

/**
 * The fields of the error of `request`, answered `status`: the message says
 * the request, the status and the server's message; a kind not served is
 * the cause.
 */
export function apiErrorFieldsOf(
  request: RequestDescription,
  status: number,
  body: StatusBody | undefined,
  serverMessage: string,
  retryAfterMs: number | undefined,
): KubeApiErrorFields {
  const reason = body?.reason;
  const code = `${status}${reason === undefined || reason === '' ? '' : ` ${reason}`}`;
  // A plain-text "404 page not found" already starts with the code: say it once.
  const text = serverMessage.startsWith(`${code} `) ? serverMessage : `${code}: ${serverMessage}`;
  const unserved = isUnservedResource(status, body);
  const cause =
    (unserved || isTerminatingKind(status, body)) && request.gvr !== undefined
      ? new KindNotServedError(request.gvr, { namespace: request.namespace === '' ? undefined : request.namespace, status })
      : undefined;
  return {
    message: `${request.method} ${request.target}: ${text}${unserved ? ` (${UNSERVED_RESOURCE_HINT})` : ''}`,
    method: request.method,
    path: request.path,
    status,
    serverMessage,
    body,
    retryAfterMs,
    cause,
  };
}

/** A 404 about the whole resource (no object named in the Status), not about one missing object. */
function isUnservedResource(status: number, body: StatusBody | undefined): boolean {
  return status === 404 && (body?.details?.name === undefined || body.details.name === '');
}

/**
 * A write refused because the kind's CRD is being deleted (kube-apiserver's
 * apiextensions answers 403 "create not allowed while custom resource
 * definition is terminating" until the CRD is gone, then 404): the kind is
 * going away, not a permission.
 */
function isTerminatingKind(status: number, body: StatusBody | undefined): boolean {
  return status === 403 && body?.message?.includes('while custom resource definition is terminating') === true;
}
