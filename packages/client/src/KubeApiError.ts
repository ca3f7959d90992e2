import { KindNotServedError, type GroupVersionResource } from '@protean/core';
import { UNSERVED_RESOURCE_HINT } from '@protean/core/internal';
import type { KubeHttpResponse } from './KubeTransport.js';

/** A `metav1.StatusCause`. */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/** The `metav1.Status` body of an error response. */
export interface StatusBody {
  readonly kind?: string;
  readonly code?: number;
  readonly reason?: string;
  readonly message?: string;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly uid?: string;
    readonly causes?: readonly StatusCause[];
    readonly retryAfterSeconds?: number;
  };
}

/** What a request was, for error messages: `PATCH configmaps default/a`. */
export interface RequestDescription {
  readonly method: string;
  readonly path: string;
  /** `configmaps default/a`, `widgets.example.com w`. */
  readonly target: string;
  /** The resource asked for: a 404 that names no object carries core's `KindNotServedError` of it as its `cause`. */
  readonly gvr?: GroupVersionResource;
  /** The namespace of the request, if any. */
  readonly namespace?: string;
}

/**
 * An error status from the API server: `status` (HTTP), `reason`
 * (`NotFound`, `Conflict`, ...) and the server's `message`, with the
 * whole `Status` body and any `Retry-After`. Core's `isNotFound`,
 * `apiStatusOf` and `summarizeError` read it like a client-node error.
 *
 * A 404 that names no object (the resource itself is not served: a CRD not
 * installed or not yet established, a kind or singular given as `resource`)
 * says so in the message, with core's `UNSERVED_RESOURCE_HINT`, as
 * `DynamicController.register` does, and carries core's `KindNotServedError`
 * as its `cause`: a handler failing with it waits for the kind (outcome
 * `waiting`) instead of being taken for deleted. So does the 403 of a
 * create while the kind's CRD is being deleted.
 *
 * Easy to get wrong: a 409 is either a stale `resourceVersion` (reason
 * `Conflict`, retry after re-reading: see `KubeClient.modify`) or, for
 * server-side apply, fields owned by another manager, which arrives as the
 * subclass {@link ApplyConflictError} and is not retried.
 */
export class KubeApiError extends Error {
  override readonly name: string = 'KubeApiError';
  /** The HTTP status. */
  readonly status: number;
  readonly reason: string | undefined;
  /** The server's `Status.message` (or the start of a non-JSON body). */
  readonly serverMessage: string;
  readonly body: StatusBody | undefined;
  /** The wait the server asked for (`Retry-After` or `details.retryAfterSeconds`). */
  readonly retryAfterMs: number | undefined;
  readonly method: string;
  readonly path: string;

  constructor(
    request: RequestDescription,
    status: number,
    body: StatusBody | undefined,
    serverMessage: string,
    retryAfterMs: number | undefined,
  ) {
    const reason = body?.reason;
    const code = `${status}${reason === undefined || reason === '' ? '' : ` ${reason}`}`;
    // A plain-text "404 page not found" already starts with the code: say it once.
    const text = serverMessage.startsWith(`${code} `) ? serverMessage : `${code}: ${serverMessage}`;
    const unserved = isUnservedResource(status, body);
    const cause =
      (unserved || isTerminatingKind(status, body)) && request.gvr !== undefined
        ? new KindNotServedError(request.gvr, { namespace: request.namespace === '' ? undefined : request.namespace, status })
        : undefined;
    super(
      `${request.method} ${request.target}: ${text}${unserved ? ` (${UNSERVED_RESOURCE_HINT})` : ''}`,
      cause === undefined ? undefined : { cause },
    );
    this.status = status;
    this.reason = reason === '' ? undefined : reason;
    this.serverMessage = serverMessage;
    this.body = body;
    this.retryAfterMs = retryAfterMs;
    this.method = request.method;
    this.path = request.path;
  }

  /** The error for a non-2xx response. */
  static fromResponse(request: RequestDescription, res: KubeHttpResponse): KubeApiError {
    const body = parseStatus(res.body);
    const text = res.body.trim();
    const message = body?.message ?? (text === '' ? 'no body' : text.slice(0, 300));
    const retryAfterMs = parseRetryAfter(res.headers['retry-after']) ?? secondsToMs(body?.details?.retryAfterSeconds);
    return new KubeApiError(request, res.status, body, message, retryAfterMs);
  }
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

function parseStatus(text: string): StatusBody | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && (parsed as { kind?: unknown }).kind === 'Status'
      ? (parsed as StatusBody)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `Retry-After` in seconds (the form the API server sends); an HTTP date is honoured too. */
function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function secondsToMs(seconds: number | undefined): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
