import { apiStatusOf } from './apiStatus.js';

/** Node and undici socket error codes that mean the network or the server's connection failed, not the request. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_PING_CANCEL',
]);

/**
 * Reasons request errors give a failure without an HTTP status: those of
 * `@protean/transport`'s `KubeTransportError` and `@protean/watch-manager`'s
 * `KubernetesRequestError` (read by value: core imports neither).
 * `InactivityTimeout` is a watch stream that went silent (a half-open connection).
 */
const NETWORK_REASONS: ReadonlySet<string> = new Set(['ConnectionRefused', 'ConnectionReset', 'NetworkError', 'InactivityTimeout']);

/** How deep the `cause` chain is searched. */
const MAX_CAUSE_DEPTH = 8;

/**
 * The network failure behind `err`, as a short stable label for logs
 * (`ECONNRESET`, `ECONNREFUSED`, `ETIMEDOUT`, `GOAWAY`, or a request
 * error's reason such as `ConnectionReset`), or `undefined` when `err` is
 * not one. Looks at `err` and its `cause` chain, outermost first, for the
 * most precise label: a string `code` Node or undici sets, or an HTTP/2
 * GOAWAY (by code or message); failing those, the first network `reason`
 * in the chain (`ConnectionRefused`, `ConnectionReset`, `NetworkError`,
 * `InactivityTimeout`).
 *
 * Easy to get wrong: an API error (a `Status` with an HTTP code) is never
 * a network error here, even when its message mentions a connection.
 */
export function networkErrorCause(err: unknown): string | undefined {
  if (apiStatusOf(err) !== undefined) return undefined;
  let reason: string | undefined;
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < MAX_CAUSE_DEPTH; depth++) {
    const o = e as { code?: unknown; reason?: unknown; message?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && NETWORK_CODES.has(o.code)) return o.code === 'ERR_HTTP2_GOAWAY_SESSION' ? 'GOAWAY' : o.code;
    if (typeof o.message === 'string' && /\bGOAWAY\b/.test(o.message)) return 'GOAWAY';
    if (reason === undefined && typeof o.reason === 'string' && NETWORK_REASONS.has(o.reason)) reason = o.reason;
    e = o.cause;
  }
  return reason;
}
