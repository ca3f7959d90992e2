import { type KubeConfigLike, KubeTransportError, type KubeConnectionPool, type KubeHttpRequest } from '@protean/transport';
import { errorMessage, type Clock, type GroupVersionResource, type TimerHandle } from '@protean/core';
import { requestOnNewConnection, type KubeStreamResponse } from '@protean/transport/internal';
import { KubernetesRequestError, type RequestVerb } from './KubernetesRequestError.js';

/** What one {@link KubeRequest} needs. */
export interface KubeRequestOptions {
  readonly kubeConfig: KubeConfigLike;
  /**
   * The connection pool the request is a stream of; `undefined` sends it
   * over a connection of its own (`connection: 'per-request'`).
   */
  readonly connectionPool: KubeConnectionPool | undefined;
  readonly gvr: GroupVersionResource;
  readonly verb: RequestVerb;
  /** Path and query, appended to the cluster's server URL. */
  readonly pathAndQuery: string;
  readonly accept: string;
  readonly clock: Clock;
  /** The request fails with reason `InactivityTimeout` after this long without a byte from the server. */
  readonly inactivityTimeoutMs: number;
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * One GET against the API server: a stream of the shared
 * `@protean/transport` connection pool (HTTP/2 where the server offers
 * it, else HTTP/1.1 keep-alive), or a connection of its own when no pool
 * is given. Authenticated by `kubeConfig.applyToHTTPSOptions()` at send
 * time, so every request (and so every reconnect) uses the current
 * credentials: token, client certificate, exec plugin, token file,
 * in-cluster. A cluster with a `proxyUrl` goes through client-node's
 * agent (with client-node 2.x a proxied cluster therefore keeps its first
 * client certificate; tokens are always current).
 *
 * A watchdog fails the request when no byte arrives for
 * `inactivityTimeoutMs`, which is how a stalled stream or a half-open
 * HTTP/1.1 connection is noticed (the pool PINGs HTTP/2 sessions on top).
 * Easy to get wrong: {@link close} must be called when done with the
 * request (also after success) to clear the watchdog and free the stream.
 */
export class KubeRequest {
  private readonly controller = new AbortController();
  private lastActivityMs: number;
  private heardMs: number | undefined;
  private watchdog: TimerHandle | undefined;

  constructor(private readonly request: KubeRequestOptions) {
    this.lastActivityMs = request.clock.now();
    this.armWatchdog(request.inactivityTimeoutMs);
  }

  /**
   * Sends the request; resolves with the response once its status is 200.
   * Any other status rejects with a {@link KubernetesRequestError} built
   * from the response's `Status` body and `Retry-After` header.
   */
  async send(): Promise<KubeStreamResponse> {
    const { kubeConfig, connectionPool, gvr, verb } = this.request;
    const aborted = this.abortReason();
    if (aborted !== undefined) throw aborted;
    const request: KubeHttpRequest = {
      method: 'GET',
      path: this.request.pathAndQuery,
      headers: { accept: this.request.accept },
      signal: this.controller.signal,
    };
    let res: KubeStreamResponse;
    try {
      res = connectionPool === undefined ? await requestOnNewConnection(kubeConfig, request) : await connectionPool.request(request);
    } catch (err) {
      throw this.abortReason() ?? requestFailure(gvr, verb, err, this.server(), this.request.pathAndQuery);
    }
    this.touch();
    if (res.status === 200) return res;
    let text = '';
    try {
      text = await this.readText(res, MAX_ERROR_BODY_BYTES);
    } catch {
      // The status alone still says what went wrong.
    }
    throw KubernetesRequestError.fromResponse(
      gvr,
      verb,
      res.status,
      res.headers['retry-after'],
      text,
      this.server(),
      this.request.pathAndQuery,
    );
  }

  /** The URL of the KubeConfig's current cluster, for error messages. */
  private server(): string | undefined {
    return this.request.kubeConfig.getCurrentCluster()?.server;
  }

  /**
   * Feeds every chunk of `res` to `onChunk` until the response ends.
   * Rejects when the connection breaks (`ConnectionReset`), the watchdog
   * fires, the request is closed, or `onChunk` throws (with that error).
   */
  consume(res: KubeStreamResponse, onChunk: (chunk: Buffer) => void): Promise<void> {
    const body = res.body;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (err: unknown): void => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        this.touch();
        try {
          onChunk(chunk);
        } catch (err) {
          fail(err);
          this.close(err instanceof Error ? err : undefined);
        }
      });
      body.on('end', () => {
        if (settled) return;
        settled = true;
        resolve();
      });
      body.on('error', (err) => fail(this.failure(err, 'ConnectionReset')));
      body.on('close', () => fail(this.failure(new Error('connection closed before the response ended'), 'ConnectionReset')));
    });
  }

  /** Reads the whole body of `res` as UTF-8 text (at most `maxBytes`). */
  async readText(res: KubeStreamResponse, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    await this.consume(res, (chunk) => {
      if (size < maxBytes) chunks.push(chunk);
      size += chunk.length;
    });
    return Buffer.concat(chunks).toString('utf8');
  }

  /** Aborts the request (if still open), frees its socket and clears the watchdog. Idempotent. */
  close(reason?: Error): void {
    if (this.watchdog !== undefined) this.request.clock.clearTimeout(this.watchdog);
    this.watchdog = undefined;
    if (!this.controller.signal.aborted) this.controller.abort(reason ?? new Error('request closed'));
  }

  /** When the server last sent something (the response head or a chunk of its body); undefined before it answered. */
  get lastHeardMs(): number | undefined {
    return this.heardMs;
  }

  private touch(): void {
    this.lastActivityMs = this.heardMs = this.request.clock.now();
  }

  private armWatchdog(delayMs: number): void {
    this.watchdog = this.request.clock.setTimeout(() => {
      this.watchdog = undefined;
      if (this.controller.signal.aborted) return;
      const idleMs = this.request.clock.now() - this.lastActivityMs;
      const limit = this.request.inactivityTimeoutMs;
      if (idleMs < limit) {
        this.armWatchdog(limit - idleMs);
        return;
      }
      const detail = `no bytes from the server for ${Math.round(idleMs)} ms (half-open connection or stalled server)`;
      this.close(
        new KubernetesRequestError(this.request.gvr, this.request.verb, detail, {
          reason: 'InactivityTimeout',
          path: this.request.pathAndQuery,
        }),
      );
    }, delayMs);
  }

  private abortReason(): Error | undefined {
    const r: unknown = this.controller.signal.reason;
    return this.controller.signal.aborted ? (r instanceof Error ? r : new Error(String(r))) : undefined;
  }

  /** The error to surface for a socket-level failure: the abort reason if we aborted, else a network error. */
  private failure(err: unknown, reason: 'NetworkError' | 'ConnectionReset'): Error {
    const aborted = this.abortReason();
    if (aborted !== undefined) return aborted;
    return new KubernetesRequestError(
      this.request.gvr,
      this.request.verb,
      `${reason === 'NetworkError' ? 'request' : 'response stream'} failed: ${errorMessage(err)}`,
      { reason, path: this.request.pathAndQuery, cause: err },
    );
  }
}

/** The informer's error for a request that got no response, keeping the transport's reason where the informer has one. */
function requestFailure(
  gvr: GroupVersionResource,
  verb: RequestVerb,
  err: unknown,
  server: string | undefined,
  path: string,
): KubernetesRequestError {
  const at = server === undefined ? { path } : { server, path };
  if (err instanceof KubeTransportError && err.reason === 'CredentialsError') {
    return new KubernetesRequestError(gvr, verb, `applying the KubeConfig's credentials failed: ${errorMessage(err.cause ?? err)}`, {
      reason: 'CredentialsError',
      ...at,
      cause: err.cause ?? err,
    });
  }
  if (err instanceof KubeTransportError && err.reason === 'NoCluster') {
    return new KubernetesRequestError(gvr, verb, 'the KubeConfig has no current cluster with a server URL', {
      reason: 'NoCluster',
      path,
      cause: err,
    });
  }
  return new KubernetesRequestError(gvr, verb, `request failed: ${errorMessage(err)}`, { reason: 'NetworkError', ...at, cause: err });
}
