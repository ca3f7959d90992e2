import type { KubeConfigLike } from './KubeConfigLike.js';
import { AccessLog } from './AccessLog.js';
import { ApiServerConnection, type ApiServerConnectionStats } from './ApiServerConnection.js';
import { applyCredentials } from './applyCredentials.js';
import { failureOf, messageOf } from './failureOf.js';
import { http1Request } from './http1Request.js';
import { resolvePoolSettings, type KubeConnectionPoolOptions, type KubeConnectionPoolSettings } from './KubeConnectionPoolOptions.js';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';
import { KubeTransportError } from './KubeTransportError.js';
import type { KubeStreamResponse } from './KubeStreamResponse.js';
import { sameTlsSettings, tlsSettingsOf } from './tlsIdentity.js';

/** What a {@link KubeConnectionPool} holds now, over all its API servers. */
export interface KubeConnectionPoolStats {
  /** TCP connections open now: HTTP/2 sessions plus HTTP/1.1 sockets (busy or kept alive). */
  readonly connections: number;
  readonly http2Sessions: number;
  readonly http1Sockets: number;
  /** Requests whose response has not ended, over every connection. */
  readonly activeStreams: number;
  /** TCP connections opened since the pool was created (for https, TLS handshakes). */
  readonly connectionsOpened: number;
  /** One entry per API server origin and TLS identity still open (retired ones until they drain). */
  readonly servers: readonly ApiServerConnectionStats[];
}

/**
 * The connections to the API server of one `KubeConfig`, shared by every
 * request made through it: lists and watches are multiplexed as streams
 * over one HTTP/2 session where the server offers `h2` by ALPN (another
 * session opens when the server's `maxConcurrentStreams` is reached), and
 * go over HTTP/1.1 keep-alive connections where it does not (a plain
 * `http:` cluster always does). A cluster with a `proxyUrl` is reached
 * through client-node's proxy agent, one connection per request.
 *
 * Credentials are applied per request by `kubeConfig.applyToHTTPSOptions()`:
 * tokens (exec plugin, token file, in-cluster) go in each stream's
 * headers; a changed TLS identity (CA, client certificate or key,
 * servername, `skipTLSVerify`) gets a new connection for new requests
 * while the old one drains and closes. A session silent for
 * `readIdleTimeoutMs` is PINGed; without an answer within `pingTimeoutMs`
 * it is destroyed and every stream on it fails (the body emits an error),
 * so callers reconnect as after any reset.
 *
 * Implements {@link KubeTransport} (`send`, buffered); `request` streams.
 * Idle sessions do not hold the event loop and close after
 * `idleTimeoutMs`.
 *
 * Easy to get wrong: {@link close} ends every open stream too; one pool is
 * meant to be shared per KubeConfig ({@link sharedConnectionPool}), so
 * close the shared one only when the whole process is done with the cluster.
 */
export class KubeConnectionPool implements KubeTransport {
  private readonly settings: KubeConnectionPoolSettings;
  /** Per origin: the connection new requests use. */
  private readonly current = new Map<string, ApiServerConnection>();
  /** Current and retired connections (retired ones until drained). */
  private readonly all = new Set<ApiServerConnection>();
  private connectionsOpened = 0;
  /**
   * Every RBAC access sent through this pool (verb, group, resource,
   * subresource, namespace) with its latest answer: what the process used,
   * and which of it the server refused (403).
   */
  readonly accessLog = new AccessLog();

  constructor(
    private readonly kubeConfig: KubeConfigLike,
    options?: KubeConnectionPoolOptions,
  ) {
    if (kubeConfig === undefined || kubeConfig === null) throw new TypeError('KubeConnectionPool: a KubeConfig is required');
    this.settings = resolvePoolSettings(options);
  }

  /**
   * Sends `request` and resolves with the response as soon as its head
   * arrives, whatever its status; the body streams. Rejects only when no
   * response came: with `signal.reason` when aborted, else a
   * {@link KubeTransportError}. Aborting after the response destroys its
   * body with the signal's reason. The answer is recorded in
   * {@link accessLog} by its status (the body is the caller's).
   */
  async request(request: KubeHttpRequest): Promise<KubeStreamResponse> {
    const res = await this.open(request);
    this.accessLog.record(request.method, request.path, res.status);
    return res;
  }

  private async open(request: KubeHttpRequest): Promise<KubeStreamResponse> {
    const prepared = await applyCredentials(this.kubeConfig, request);
    if (prepared.proxied) return http1Request(prepared, request, undefined);
    const tls = prepared.plain ? {} : tlsSettingsOf(prepared.options);
    let connection = this.current.get(prepared.origin);
    if (connection === undefined || !sameTlsSettings(connection.tlsSettings, tls)) {
      // A new TLS identity for this server: new requests go on a new connection, the old one drains.
      connection?.retire();
      connection = new ApiServerConnection(
        prepared.origin,
        tls,
        prepared.plain,
        { ...this.settings, onConnectionOpened: () => (this.connectionsOpened += 1) },
        (gone) => this.all.delete(gone),
      );
      this.current.set(prepared.origin, connection);
      this.all.add(connection);
    }
    return connection.request(prepared, request);
  }

  /**
   * Sends `request` and reads the whole body as UTF-8 (the {@link KubeTransport}
   * contract). The answer is recorded in {@link accessLog}, a refusal with
   * the server's message.
   */
  async send(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    const res = await this.open(request);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of res.body) chunks.push(chunk as Buffer);
    } catch (err) {
      this.accessLog.record(request.method, request.path, res.status);
      if (request.signal?.aborted === true) throw request.signal.reason;
      throw new KubeTransportError(
        request.method,
        request.path,
        failureOf(err, 'ConnectionReset'),
        `reading the response failed: ${messageOf(err)}`,
        err,
      );
    }
    if (!res.body.readableEnded) {
      this.accessLog.record(request.method, request.path, res.status);
      if (request.signal?.aborted === true) throw request.signal.reason;
      throw new KubeTransportError(request.method, request.path, 'ConnectionReset', 'connection closed before the response ended');
    }
    const body = Buffer.concat(chunks).toString('utf8');
    this.accessLog.record(request.method, request.path, res.status, res.status === 403 ? body : undefined);
    return { status: res.status, headers: res.headers, body };
  }

  /** What the pool holds now (for tests, metrics and status pages). */
  stats(): KubeConnectionPoolStats {
    const servers = [...this.all].map((c) => c.stats());
    const sum = (f: (s: ApiServerConnectionStats) => number): number => servers.reduce((n, s) => n + f(s), 0);
    return {
      connections: sum((s) => s.http2Sessions + s.http1Sockets),
      http2Sessions: sum((s) => s.http2Sessions),
      http1Sockets: sum((s) => s.http1Sockets),
      activeStreams: sum((s) => s.activeStreams),
      connectionsOpened: this.connectionsOpened,
      servers,
    };
  }

  /**
   * Closes every connection now; open streams fail with a
   * `ConnectionReset` {@link KubeTransportError}. The pool still works
   * afterwards: the next request connects again.
   */
  close(): void {
    const err = new KubeTransportError('CLOSE', 'connection pool', 'ConnectionReset', 'the connection pool was closed');
    for (const c of [...this.all]) c.destroy(err);
    this.current.clear();
  }
}
