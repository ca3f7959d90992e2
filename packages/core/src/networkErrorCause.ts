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
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_PING_CANCEL',
]);

/** `@protean/transport`'s `KubeTransportError` reasons that are network failures (read by name: core imports no transport). */
const TRANSPORT_REASONS: ReadonlySet<string> = new Set(['ConnectionRefused', 'ConnectionReset', 'NetworkError']);

/** How deep the `cause` chain is searched. */
const MAX_CAUSE_DEPTH = 8;

/**
 * The network failure behind `err`, as a short stable label for logs
 * (`ECONNRESET`, `ECONNREFUSED`, `ETIMEDOUT`, `GOAWAY`, or a transport
 * reason such as `ConnectionReset`), or `undefined` when `err` is not one.
 * Looks at `err` and its `cause` chain, outermost first: a string `code`
 * Node or undici sets, an HTTP/2 GOAWAY (by code or message), and the
 * `reason` of a `KubeTransportError`.
 *
 * Easy to get wrong: an API error (a `Status` with an HTTP code) is never
 * a network error here, even when its message mentions a connection.
 */
export function networkErrorCause(err: unknown): string | undefined {
  if (apiStatusOf(err) !== undefined) return undefined;
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < MAX_CAUSE_DEPTH; depth++) {
    const o = e as { code?: unknown; name?: unknown; reason?: unknown; message?: unknown; cause?: unknown };
    if (o.name === 'KubeTransportError' && typeof o.reason === 'string' && TRANSPORT_REASONS.has(o.reason)) return o.reason;
    if (typeof o.code === 'string' && NETWORK_CODES.has(o.code)) return o.code === 'ERR_HTTP2_GOAWAY_SESSION' ? 'GOAWAY' : o.code;
    if (typeof o.message === 'string' && /\bGOAWAY\b/.test(o.message)) return 'GOAWAY';
    e = o.cause;
  }
  return undefined;
}
