import { gvrKey, KubeApiError, type GroupVersionResource } from '@protean/core';
import { type ApiErrorResponse, type RequestDescription, type StatusBody, parseStatusBody, retryAfterMsOf } from '@protean/core/internal';

/** The parts of a Kubernetes `Status` object the informer looks at: core's `StatusBody`. */
export type KubeStatus = StatusBody;

/** What the informer was doing when a request failed. */
export type RequestVerb = 'LIST' | 'WATCH';

/**
 * A failed list or watch of a {@link KubernetesInformer}: an HTTP error
 * status, an in-stream `ERROR` event, a broken connection or a client-side
 * inactivity timeout. This is what the informer's watch error handler
 * receives. It is core's `KubeApiError` (so `status`, `reason`, `body` and
 * `retryAfterMs` mean what they mean for every API error) with the GVR,
 * the verb and the server it was about. `status` is the HTTP (or
 * `Status.code`) status; it is `undefined` for failures without an
 * answer, whose `reason` is then one of `NetworkError`, `ConnectionReset`,
 * `InactivityTimeout`, `InvalidResponse`, ...
 *
 * Easy to get wrong: an expired resourceVersion arrives either as HTTP 410
 * or as an in-stream ERROR event with `code: 410`; {@link expired} covers both.
 */
export class KubernetesRequestError extends KubeApiError {
  override readonly name = 'KubernetesRequestError';
  /** The resource listed or watched. */
  readonly gvr: GroupVersionResource;
  /** `LIST` or `WATCH` (also its `method`). */
  readonly verb: RequestVerb;
  /** The API server URL the request went to (the KubeConfig's current cluster), when known. */
  readonly server: string | undefined;

  /** `path`: the path and query asked for, when the caller knows it. */
  constructor(
    gvr: GroupVersionResource,
    verb: RequestVerb,
    detail: string,
    fields: {
      status?: number | undefined;
      reason?: string | undefined;
      retryAfterMs?: number | undefined;
      body?: KubeStatus | undefined;
      serverMessage?: string | undefined;
      server?: string | undefined;
      path?: string | undefined;
      cause?: unknown;
    } = {},
  ) {
    super({
      message: `${verb} ${gvrKey(gvr)} failed: ${detail}`,
      method: verb,
      path: fields.path,
      status: fields.status,
      reason: fields.reason,
      serverMessage: fields.serverMessage,
      body: fields.body,
      retryAfterMs: fields.retryAfterMs,
      cause: fields.cause,
    });
    this.gvr = gvr;
    this.verb = verb;
    this.server = fields.server;
  }

  /** The form every `KubeApiError` has: a plain `KubeApiError` of any request (see `KubeApiError.fromResponse`). */
  static override fromResponse(request: RequestDescription, res: ApiErrorResponse): KubeApiError;
  /** Builds the error of a non-200 response from its status, `Retry-After` header and body text (`server`: the URL asked; `path`: the path and query). */
  static override fromResponse(
    gvr: GroupVersionResource,
    verb: RequestVerb,
    httpStatus: number,
    retryAfterHeader: string | undefined,
    bodyText: string,
    server?: string,
    path?: string,
  ): KubernetesRequestError;
  static override fromResponse(
    first: GroupVersionResource | RequestDescription,
    second: RequestVerb | ApiErrorResponse,
    httpStatus?: number,
    retryAfterHeader?: string,
    bodyText = '',
    server?: string,
    path?: string,
  ): KubeApiError {
    if (typeof second !== 'string') return KubeApiError.fromResponse(first as RequestDescription, second);
    const gvr = first as GroupVersionResource;
    const verb = second;
    // Any JSON object: a list/watch reads the code and reason of whatever the server sent.
    const body = parseStatusBody(bodyText, { anyObject: true });
    const retryAfterMs = retryAfterMsOf(retryAfterHeader, body);
    const reason = body?.reason;
    // A plain-text body ("404 page not found\n" for a resource that is not served) ends in a newline.
    const text = bodyText.trim();
    const message = body?.message ?? (text.length > 0 ? text.slice(0, 200) : 'no body');
    const fields: ConstructorParameters<typeof KubernetesRequestError>[3] = { status: httpStatus, serverMessage: message };
    if (reason !== undefined) fields.reason = reason;
    if (retryAfterMs !== undefined) fields.retryAfterMs = retryAfterMs;
    if (body !== undefined) fields.body = body;
    if (server !== undefined) fields.server = server;
    if (path !== undefined) fields.path = path;
    return new KubernetesRequestError(gvr, verb, `${httpStatus}${reason === undefined ? '' : ` ${reason}`}: ${message}`, fields);
  }

  /** Builds the error of an in-stream watch `ERROR` event. */
  static fromStatus(gvr: GroupVersionResource, status: KubeStatus | undefined): KubernetesRequestError {
    const fields: ConstructorParameters<typeof KubernetesRequestError>[3] = {};
    if (typeof status?.code === 'number') fields.status = status.code;
    if (status?.reason !== undefined) fields.reason = status.reason;
    if (status?.message !== undefined) fields.serverMessage = status.message;
    if (status !== undefined) fields.body = status;
    const detail = `ERROR event ${status?.code ?? '?'}${status?.reason === undefined ? '' : ` ${status.reason}`}: ${status?.message ?? 'no message'}`;
    return new KubernetesRequestError(gvr, 'WATCH', detail, fields);
  }

  /** The resourceVersion asked for is older than the server keeps (410 Gone / Expired). */
  get expired(): boolean {
    return this.status === 410 || this.reason === 'Expired' || this.reason === 'Gone';
  }

  /** The resourceVersion asked for is newer than the server has seen (e.g. another server behind a load balancer). */
  get resourceVersionTooLarge(): boolean {
    const causes = this.body?.details?.causes ?? [];
    return (
      causes.some((c) => c.reason === 'ResourceVersionTooLarge') ||
      (this.body?.message ?? '').toLowerCase().includes('too large resource version')
    );
  }
}
