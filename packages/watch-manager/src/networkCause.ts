import { rootCause, serverOf } from './unfixableFailure.js';

/** What a network failure log line says about its cause, and the key that groups the same cause across informers. */
export interface NetworkCause {
  /** The Node error code (`ECONNRESET`, `ECONNREFUSED`, `ETIMEDOUT`, `ERR_HTTP2_GOAWAY_SESSION`, ...) or the informer's reason (`InactivityTimeout`). */
  readonly code: string;
  readonly server: string | undefined;
  /** The innermost error's message: the socket's own words, without the request. */
  readonly detail: string;
  readonly key: string;
}

const MAX_DEPTH = 8;

/**
 * The cause of a failure that got no HTTP status (a reset, refused or
 * timed-out connection, a GOAWAY, a stalled stream); `undefined` for a
 * failure with a status (the server answered).
 */
export function networkCause(
  err: Error & { readonly status?: number | undefined; readonly reason?: string | undefined },
): NetworkCause | undefined {
  if (err.status !== undefined) return undefined;
  let code: string | undefined;
  let cur: unknown = err;
  for (let depth = 0; depth < MAX_DEPTH && cur !== null && typeof cur === 'object'; depth++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') code = c;
    cur = (cur as { cause?: unknown }).cause;
  }
  code ??= err.reason ?? 'NetworkError';
  const server = serverOf(err);
  return { code, server, detail: rootCause(err).message, key: `${code} ${server ?? ''}` };
}
