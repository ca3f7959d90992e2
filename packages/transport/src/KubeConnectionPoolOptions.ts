/** Tuning of a {@link KubeConnectionPool}; every field has a production default. */
export interface KubeConnectionPoolOptions {
  /**
   * An HTTP/2 session from which no byte arrived for this long is sent a
   * PING (client-go's `ReadIdleTimeout`). Default 30 000.
   */
  readonly readIdleTimeoutMs?: number;
  /**
   * A PING unanswered for this long marks the session dead: it is
   * destroyed and every stream on it fails (client-go's `PingTimeout`).
   * Default 15 000.
   */
  readonly pingTimeoutMs?: number;
  /** A session with no open stream for this long is closed (client-go's `IdleConnTimeout`). Default 90 000. */
  readonly idleTimeoutMs?: number;
  /** A TLS handshake or the server's first SETTINGS frame not done within this long fails the connect. Default 30 000. */
  readonly connectTimeoutMs?: number;
  /** Offer HTTP/2 by ALPN. Default `true`; `false` speaks HTTP/1.1 keep-alive only. */
  readonly http2?: boolean;
  /**
   * HTTP/2 connections to each API server that streams are spread over, an
   * integer >= 1. The streams of one collection (a request's path without
   * its query: an informer's LISTs and its WATCH) always take the same one,
   * so they reach the same kube-apiserver behind a load balancer. Default
   * 2: kube-apiserver hands each response body to its connection's one
   * writer in 4 KiB chunks, so LISTs sharing a connection wait on each
   * other; over two, 200 informers sync 5-6% sooner (bench/README.md,
   * "Where the time to sync goes"). More open only when the server's
   * `maxConcurrentStreams` is reached.
   */
  readonly http2Connections?: number;
  /**
   * HTTP/2 flow-control window of each stream, in bytes: how much the
   * server may send on one list or watch before the client acknowledges
   * it. Default 4 MiB (Node's own default, 64 KiB, throttles many watches
   * sharing one connection).
   */
  readonly streamWindowBytes?: number;
  /**
   * HTTP/2 flow-control window of the whole session, in bytes, shared by
   * all its streams. Default 32 MiB.
   */
  readonly connectionWindowBytes?: number;
}

/** {@link KubeConnectionPoolOptions} with every default filled in. */
export interface KubeConnectionPoolSettings {
  readonly readIdleTimeoutMs: number;
  readonly pingTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly http2: boolean;
  readonly http2Connections: number;
  readonly streamWindowBytes: number;
  readonly connectionWindowBytes: number;
}

/** The largest flow-control window HTTP/2 allows (RFC 9113, 6.9.1). */
const MAX_WINDOW_BYTES = 2 ** 31 - 1;

/** `http2Connections`, checked: an integer >= 1 (default 2). */
function connections(value: number | undefined): number {
  if (value === undefined) return 2;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new RangeError(`KubeConnectionPool: options.http2Connections must be an integer >= 1, got ${String(value)}`);
  }
  return value;
}

/** Fills in the defaults of `options`, once; a duration that is not a positive number throws a `RangeError` naming it. */
export function resolvePoolSettings(options: KubeConnectionPoolOptions = {}): KubeConnectionPoolSettings {
  const duration = (name: keyof KubeConnectionPoolOptions, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new RangeError(`KubeConnectionPool: options.${name} must be a positive number of milliseconds, got ${String(value)}`);
    }
    return value;
  };
  const windowSize = (name: keyof KubeConnectionPoolOptions, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 65_535 || value > MAX_WINDOW_BYTES) {
      throw new RangeError(
        `KubeConnectionPool: options.${name} must be an integer from 65535 to ${MAX_WINDOW_BYTES} bytes, got ${String(value)}`,
      );
    }
    return value;
  };
  return {
    readIdleTimeoutMs: duration('readIdleTimeoutMs', options.readIdleTimeoutMs, 30_000),
    pingTimeoutMs: duration('pingTimeoutMs', options.pingTimeoutMs, 15_000),
    idleTimeoutMs: duration('idleTimeoutMs', options.idleTimeoutMs, 90_000),
    connectTimeoutMs: duration('connectTimeoutMs', options.connectTimeoutMs, 30_000),
    http2: options.http2 ?? true,
    http2Connections: connections(options.http2Connections),
    streamWindowBytes: windowSize('streamWindowBytes', options.streamWindowBytes, 4 * 1024 * 1024),
    connectionWindowBytes: windowSize('connectionWindowBytes', options.connectionWindowBytes, 32 * 1024 * 1024),
  };
}
