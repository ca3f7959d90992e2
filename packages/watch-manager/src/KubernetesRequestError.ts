import { gvrKey, type GroupVersionResource } from '@protean/core';

/** The parts of a Kubernetes `Status` object the informer looks at. */
export interface KubeStatus {
  readonly kind?: string;
  readonly code?: number;
  readonly reason?: string;
  readonly message?: string;
  readonly details?: {
    readonly retryAfterSeconds?: number;
    readonly causes?: ReadonlyArray<{ readonly reason?: string; readonly message?: string }>;
  };
}

/** What the informer was doing when a request failed. */
export type RequestVerb = 'LIST' | 'WATCH';

/**
 * A failed list or watch of a {@link KubernetesInformer}: an HTTP error
 * status, an in-stream `ERROR` event, a broken connection or a client-side
 * inactivity timeout. This is what the informer's watch error handler
 * receives. `status` is the HTTP (or `Status.code`) status; it is
 * `undefined` for network failures, whose `reason` is then one of
 * `NetworkError`, `ConnectionReset` or `InactivityTimeout`.
 *
 * Easy to get wrong: an expired resourceVersion arrives either as HTTP 410
 * or as an in-stream ERROR event with `code: 410`; {@link expired} covers both.
 */
export class KubernetesRequestError extends Error {
  override readonly name = 'KubernetesRequestError';
  readonly gvr: GroupVersionResource;
  readonly verb: RequestVerb;
  readonly status: number | undefined;
  readonly reason: string | undefined;
  /** Server-requested wait before retrying (HTTP `Retry-After` or `Status.details.retryAfterSeconds`). */
  readonly retryAfterMs: number | undefined;
  /** The server's `Status` body, when there was one. */
  readonly body: KubeStatus | undefined;
  /** The API server URL the request went to (the KubeConfig's current cluster), when known. */
  readonly server: string | undefined;

  constructor(
    gvr: GroupVersionResource,
    verb: RequestVerb,
    detail: string,
    fields: { status?: number; reason?: string; retryAfterMs?: number; body?: KubeStatus; server?: string; cause?: unknown } = {},
  ) {
    super(`${verb} ${gvrKey(gvr)} failed: ${detail}`, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.gvr = gvr;
    this.verb = verb;
    this.status = fields.status;
    this.reason = fields.reason;
    this.retryAfterMs = fields.retryAfterMs;
    this.body = fields.body;
    this.server = fields.server;
  }

  /** Builds the error of a non-200 response from its status, `Retry-After` header and body text (`server`: the URL asked). */
  static fromResponse(
    gvr: GroupVersionResource,
    verb: RequestVerb,
    httpStatus: number,
    retryAfterHeader: string | undefined,
    bodyText: string,
    server?: string,
  ): KubernetesRequestError {
    const body = parseStatus(bodyText);
    const retryAfterMs = parseRetryAfter(retryAfterHeader) ?? secondsToMs(body?.details?.retryAfterSeconds);
    const reason = body?.reason;
    // A plain-text body ("404 page not found\n" for a resource that is not served) ends in a newline.
    const text = bodyText.trim();
    const message = body?.message ?? (text.length > 0 ? text.slice(0, 200) : 'no body');
    const fields: ConstructorParameters<typeof KubernetesRequestError>[3] = { status: httpStatus };
    if (reason !== undefined) fields.reason = reason;
    if (retryAfterMs !== undefined) fields.retryAfterMs = retryAfterMs;
    if (body !== undefined) fields.body = body;
    if (server !== undefined) fields.server = server;
    return new KubernetesRequestError(gvr, verb, `${httpStatus}${reason === undefined ? '' : ` ${reason}`}: ${message}`, fields);
  }

  /** Builds the error of an in-stream watch `ERROR` event. */
  static fromStatus(gvr: GroupVersionResource, status: KubeStatus | undefined): KubernetesRequestError {
    const fields: ConstructorParameters<typeof KubernetesRequestError>[3] = {};
    if (typeof status?.code === 'number') fields.status = status.code;
    if (status?.reason !== undefined) fields.reason = status.reason;
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

function parseStatus(text: string): KubeStatus | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as KubeStatus) : undefined;
  } catch {
    return undefined;
  }
}

function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return secondsToMs(seconds);
  const at = Date.parse(header);
  // An HTTP date is wall time: only the wall clock can turn it into a delay.
  // eslint-disable-next-line no-restricted-properties
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function secondsToMs(seconds: number | undefined): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
