import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { errorMessage, type Clock, type GroupVersionResource, type TimerHandle } from '@protean/core';
import { KubernetesRequestError, type RequestVerb } from './KubernetesRequestError.js';

/** What one {@link KubeRequest} needs. */
export interface KubeRequestOptions {
  readonly kubeConfig: KubeConfig;
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
 * One GET against the API server over `node:http`/`node:https`,
 * authenticated by `kubeConfig.applyToHTTPSOptions()` at send time, so
 * every request (and so every reconnect) uses the current credentials:
 * token, client certificate, exec plugin, token file, in-cluster. The agent
 * client-node returns is used only for a cluster with a `proxyUrl` (with
 * client-node 2.x a proxied cluster therefore keeps its first client
 * certificate; tokens are always current).
 *
 * A watchdog fails the request when no byte arrives for
 * `inactivityTimeoutMs`, which is how a half-open connection is noticed.
 * Easy to get wrong: {@link close} must be called when done with the
 * request (also after success) to clear the watchdog and free the socket.
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
  async send(): Promise<http.IncomingMessage> {
    const { kubeConfig, gvr, verb } = this.request;
    const opts: https.RequestOptions = { method: 'GET', headers: { Accept: this.request.accept } };
    try {
      await kubeConfig.applyToHTTPSOptions(opts);
    } catch (err) {
      throw (
        this.abortReason() ??
        new KubernetesRequestError(gvr, verb, `applying the KubeConfig's credentials failed: ${errorMessage(err)}`, {
          reason: 'CredentialsError',
          cause: err,
        })
      );
    }
    const cluster = kubeConfig.getCurrentCluster();
    const server = cluster?.server;
    if (server === undefined || server === '') {
      throw new KubernetesRequestError(gvr, verb, 'the KubeConfig has no current cluster with a server URL', { reason: 'NoCluster' });
    }
    const url = new URL(server.replace(/\/+$/, '') + this.request.pathAndQuery);
    const plain = url.protocol === 'http:';
    // client-node 2.x hands out one cached agent per cluster+user, built from the first call's TLS options,
    // and a Node agent's options override the request's: a rotated client certificate (exec plugin, certFile)
    // would never be presented again. The request options carry every TLS setting, so only a proxy needs
    // client-node's agent; otherwise use a one-off agent, as client-node 1.4 did.
    if ((cluster?.proxyUrl ?? '') === '') opts.agent = false;
    // An https agent cannot carry a plain-http request (a cluster with skipTLSVerify on http:).
    else if (plain && opts.agent instanceof https.Agent) delete opts.agent;
    const aborted = this.abortReason();
    if (aborted !== undefined) throw aborted;
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const onResponse = (r: http.IncomingMessage): void => {
        // Errors before the caller listens must not become unhandled 'error' events.
        r.on('error', () => undefined);
        resolve(r);
      };
      try {
        const req = (plain ? http : https).request(url, { ...opts, signal: this.controller.signal }, onResponse);
        req.on('error', (err) => reject(this.failure(err, 'NetworkError')));
        req.end();
      } catch (err) {
        reject(this.failure(err, 'NetworkError'));
      }
    });
    this.touch();
    if (res.statusCode === 200) return res;
    let text = '';
    try {
      text = await this.readText(res, MAX_ERROR_BODY_BYTES);
    } catch {
      // The status alone still says what went wrong.
    }
    const retryAfter = res.headers['retry-after'];
    throw KubernetesRequestError.fromResponse(gvr, verb, res.statusCode ?? 0, retryAfter, text);
  }

  /**
   * Feeds every chunk of `res` to `onChunk` until the response ends.
   * Rejects when the connection breaks (`ConnectionReset`), the watchdog
   * fires, the request is closed, or `onChunk` throws (with that error).
   */
  consume(res: http.IncomingMessage, onChunk: (chunk: Buffer) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (err: unknown): void => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        this.touch();
        try {
          onChunk(chunk);
        } catch (err) {
          fail(err);
          this.close(err instanceof Error ? err : undefined);
        }
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        resolve();
      });
      res.on('error', (err) => fail(this.failure(err, 'ConnectionReset')));
      res.on('close', () => fail(this.failure(new Error('connection closed before the response ended'), 'ConnectionReset')));
    });
  }

  /** Reads the whole body of `res` as UTF-8 text (at most `maxBytes`). */
  async readText(res: http.IncomingMessage, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
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
      this.close(new KubernetesRequestError(this.request.gvr, this.request.verb, detail, { reason: 'InactivityTimeout' }));
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
      {
        reason,
        cause: err,
      },
    );
  }
}
