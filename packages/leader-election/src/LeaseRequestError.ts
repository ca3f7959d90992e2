import { KubeApiError } from '@protean/core';
import { type ApiErrorResponse, type StatusBody, retryAfterMsOf } from '@protean/core/internal';

/** Which lease call failed (`list` and `delete`: the member lease calls of `@protean/sharding`). */
export type LeaseVerb = 'get' | 'create' | 'update' | 'watch' | 'list' | 'delete';

/** The method each lease call is, as `KubeApiError.method` says it (a list and a watch by their verb, as a list/watch's). */
const METHODS: Readonly<Record<LeaseVerb, string>> = {
  get: 'GET',
  create: 'POST',
  update: 'PUT',
  watch: 'WATCH',
  list: 'LIST',
  delete: 'DELETE',
};

/**
 * A failed call of a {@link LeaseClient}: core's `KubeApiError` (so
 * `status`, `reason`, `body` and `retryAfterMs` mean what they mean for
 * every API error) with the call and the lease it was about. An HTTP
 * error status carries the `Status` reason when the server sent one; a
 * network failure or an aborted request has `status` undefined and
 * `reason` `NetworkError` or `Aborted`.
 */
export class LeaseRequestError extends KubeApiError {
  override readonly name = 'LeaseRequestError';
  /** Which lease call failed. */
  readonly verb: LeaseVerb;
  /** `namespace/name` of the lease (`namespace/*` for a list or a watch by label). */
  readonly lease: string;

  /** `path`: the path and query asked for, when the caller knows it. */
  constructor(
    verb: LeaseVerb,
    lease: string,
    detail: string,
    fields: {
      status?: number | undefined;
      reason?: string | undefined;
      serverMessage?: string | undefined;
      body?: StatusBody | undefined;
      retryAfterMs?: number | undefined;
      path?: string | undefined;
      cause?: unknown;
    } = {},
  ) {
    super({ ...fields, message: `${verb} lease ${lease} failed: ${detail}`, method: METHODS[verb] });
    this.verb = verb;
    this.lease = lease;
  }

  /**
   * The error of an answer with an error status (`res`, its body as text):
   * the `Status` reason and message of the body (`noMessage` when it has
   * none), its `Retry-After`.
   */
  static fromAnswer(
    verb: LeaseVerb,
    lease: string,
    res: ApiErrorResponse,
    options: { readonly path?: string; readonly noMessage?: string } = {},
  ): LeaseRequestError {
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.body);
    } catch {
      parsed = { message: res.body.trim().slice(0, 200) };
    }
    const s = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    const reason = typeof s['reason'] === 'string' ? s['reason'] : undefined;
    const message = typeof s['message'] === 'string' ? s['message'] : (options.noMessage ?? 'no Status body');
    const body = s['kind'] === 'Status' ? (s as StatusBody) : undefined;
    return new LeaseRequestError(verb, lease, `${res.status}${reason === undefined ? '' : ` ${reason}`}: ${message}`, {
      status: res.status,
      reason,
      serverMessage: message,
      body,
      retryAfterMs: retryAfterMsOf(res.headers['retry-after'], body),
      path: options.path,
    });
  }

  /** True for a 409: the lease exists already (create) or changed since it was read (update). */
  get conflict(): boolean {
    return this.status === 409;
  }
}
