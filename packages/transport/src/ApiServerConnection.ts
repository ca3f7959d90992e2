import type * as http from 'node:http';
import type * as http2 from 'node:http2';
import type { Readable } from 'node:stream';
import type * as tls from 'node:tls';
import type { PreparedRequest } from './applyCredentials.js';
import { failureOf, messageOf } from './failureOf.js';
import { flatHeaders } from './flatHeaders.js';
import { H2Session, type SessionTimings } from './H2Session.js';
import { http1Request } from './http1Request.js';
import type { KubeHttpRequest } from './KubeTransport.js';
import { KubeTransportError } from './KubeTransportError.js';
import type { KubeStreamResponse, KubeWireProtocol } from './KubeStreamResponse.js';
import type { TlsSettings } from './tlsIdentity.js';

/** What an {@link ApiServerConnection} needs from its pool. */
export interface ConnectionSettings extends SessionTimings {
  readonly connectTimeoutMs: number;
  readonly http2: boolean;
  /** Sessions the streams are spread over, each collection on one (`KubeConnectionPoolOptions.http2Connections`). */
  readonly http2Connections: number;
  readonly streamWindowBytes: number;
  readonly connectionWindowBytes: number;
  /** Counts every new TCP connection (each TLS handshake). */
  readonly onConnectionOpened: () => void;
}

/** What one {@link ApiServerConnection} holds now. */
export interface ApiServerConnectionStats {
  /** `https://host:port` of the API server. */
  readonly origin: string;
  /** `'h2'` once HTTP/2 was negotiated, `'http/1.1'` when it was not offered (or the cluster is plain http), `'unknown'` before the first connect. */
  readonly protocol: KubeWireProtocol | 'unknown';
  /** Open HTTP/2 sessions (each one TCP connection). */
  readonly http2Sessions: number;
  /** Open HTTP/1.1 sockets, busy or kept alive. */
  readonly http1Sockets: number;
  /** Requests whose response has not ended. */
  readonly activeStreams: number;
  /** The server's HTTP/2 `maxConcurrentStreams` (per session), once a session is open. kube-apiserver sends 100. */
  readonly maxConcurrentStreams: number | undefined;
  /** A newer TLS identity replaced this one: it takes no new requests and closes once drained. */
  readonly retired: boolean;
}

/**
 * Which of `lanes` sessions the requests of `path`'s collection take: a
 * hash of the path up to its query (FNV-1a), so a LIST and the WATCH after
 * it share one.
 */
export function laneOf(path: string, lanes: number): number {
  const query = path.indexOf('?');
  const end = query < 0 ? path.length : query;
  let hash = 0x811c9dc5;
  for (let i = 0; i < end; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

/** Connection-specific headers HTTP/2 forbids (RFC 9113 §8.2.2); `host` becomes `:authority`. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

/**
 * Everything a pool holds for one API server origin and one TLS identity:
 * HTTP/2 sessions when the server offers `h2` by ALPN (as many as its
 * `maxConcurrentStreams` requires), else one HTTP/1.1 keep-alive agent.
 * A retired connection (its identity was replaced) takes no new requests
 * and closes when its open streams end.
 */
export class ApiServerConnection {
  private protocol: KubeWireProtocol | 'unknown';
  private readonly sessions: H2Session[] = [];
  /** The session each lane's collections use (see {@link laneOf}); unset until a stream of the lane opens. */
  private readonly lanes: Array<H2Session | undefined> = [];
  private connecting: Promise<H2Session | undefined> | undefined;
  private agent: http.Agent | undefined;
  private http1Active = 0;
  /** Bodies of HTTP/1.1 responses still being read. */
  private readonly http1Bodies = new Set<Readable>();
  private retired = false;

  constructor(
    readonly origin: string,
    /** The TLS identity it connects with (the pool opens another connection when a request's differs). */
    readonly tlsSettings: TlsSettings,
    plain: boolean,
    private readonly settings: ConnectionSettings,
    private readonly onGone: (c: ApiServerConnection) => void,
  ) {
    this.protocol = plain || !settings.http2 ? 'http/1.1' : 'unknown';
  }

  async request(prepared: PreparedRequest, request: KubeHttpRequest): Promise<KubeStreamResponse> {
    if (this.protocol !== 'http/1.1') {
      const headers = h2Headers(prepared, request);
      const stream = await this.openStream(headers, request);
      if (stream !== undefined) return this.responseOf(stream, request);
    }
    return this.requestHttp1(prepared, request);
  }

  /** No new requests; close every session and socket once its streams end. */
  retire(): void {
    this.retired = true;
    for (const s of [...this.sessions]) s.drain();
    if (this.http1Active === 0) this.agent?.destroy();
    this.checkGone();
  }

  /** Closes every session and socket now, failing their streams with `err`. */
  destroy(err: Error): void {
    this.retired = true;
    for (const s of this.sessions.splice(0)) s.destroy(err);
    for (const body of [...this.http1Bodies]) body.destroy(err);
    this.agent?.destroy();
    this.checkGone();
  }

  stats(): ApiServerConnectionStats {
    let http1Sockets = 0;
    if (this.agent !== undefined) {
      for (const list of [...Object.values(this.agent.sockets), ...Object.values(this.agent.freeSockets)])
        http1Sockets += list?.length ?? 0;
    }
    return {
      origin: this.origin,
      protocol: this.protocol,
      http2Sessions: this.sessions.length,
      http1Sockets,
      activeStreams: this.sessions.reduce((n, s) => n + s.active, 0) + this.http1Active,
      maxConcurrentStreams: this.sessions[0]?.maxStreams,
      retired: this.retired,
    };
  }

  /**
   * Opens a stream on a session with room for it: an open one, else a new
   * one (one connect at a time); `undefined` when the server speaks
   * HTTP/1.1 only. The room check and the open happen in one step, so
   * requests waiting for the same connect never overfill a session.
   */
  private async openStream(headers: http2.OutgoingHttpHeaders, request: KubeHttpRequest): Promise<http2.ClientHttp2Stream | undefined> {
    const { method, path, signal } = request;
    for (;;) {
      signal?.throwIfAborted();
      const free = this.sessionFor(path);
      if (free !== undefined) {
        // The last moment before the stream exists: what throws here is the caller's own refusal, passed on as is.
        request.beforeSend?.();
        try {
          return free.open(headers, request.body === undefined);
        } catch (err) {
          throw new KubeTransportError(
            method,
            path,
            'NetworkError',
            `opening an HTTP/2 stream to ${this.origin} failed: ${messageOf(err)}`,
            err,
          );
        }
      }
      if (this.protocol === 'http/1.1') return undefined;
      this.connecting ??= this.connect().finally(() => {
        this.connecting = undefined;
        this.checkGone();
      });
      let session: H2Session | undefined;
      try {
        session = await abortable(this.connecting, signal);
      } catch (err) {
        if (signal?.aborted === true) throw signal.reason;
        const reason = err instanceof KubeTransportError ? err.reason : failureOf(err, 'NetworkError');
        throw new KubeTransportError(method, path, reason, `connecting to ${this.origin} failed: ${messageOf(err)}`, err);
      }
      if (session === undefined) return undefined;
      // Loop: the new session may already be full with the requests that waited for it.
    }
  }

  /**
   * The session a stream of `path` opens on: its collection's own (the
   * path without its query picks one of `http2Connections` lanes; a lane
   * without a session takes an open one no lane holds), else any with
   * room; `undefined` when the lane has no session yet or no session has
   * room (the caller connects another).
   */
  private sessionFor(path: string): H2Session | undefined {
    const count = this.settings.http2Connections;
    if (count > 1) {
      const lane = laneOf(path, count);
      let own = this.lanes[lane];
      // A session that takes no more streams (GOAWAY, closing) gives its lane up for the next one to open.
      if (own?.takesStreams() === false) own = this.lanes[lane] = undefined;
      if (own === undefined) {
        own = this.sessions.find((s) => s.hasRoom() && !this.lanes.includes(s));
        if (own === undefined) return undefined;
        this.lanes[lane] = own;
      }
      if (own.hasRoom()) return own;
    }
    return this.sessions.find((s) => s.hasRoom());
  }

  private async connect(): Promise<H2Session | undefined> {
    const socket = await negotiate(new URL(this.origin), this.tlsSettings, this.settings.connectTimeoutMs);
    this.settings.onConnectionOpened();
    if (socket.alpnProtocol !== 'h2') {
      // The server did not choose h2 (an HTTP/1.1-only server or proxy): the keep-alive agent makes its own connections.
      socket.destroy();
      this.protocol = 'http/1.1';
      return undefined;
    }
    this.protocol = 'h2';
    const session = process.getBuiltinModule('node:http2').connect(this.origin, {
      createConnection: () => socket,
      settings: { enablePush: false, initialWindowSize: this.settings.streamWindowBytes },
    });
    await settingsOf(session, this.origin, this.settings.connectTimeoutMs);
    // The session's own window starts at 64 KiB whatever SETTINGS say; only a WINDOW_UPDATE widens it.
    session.setLocalWindowSize(this.settings.connectionWindowBytes);
    const h2 = new H2Session(session, socket, this.origin, this.settings, (s) => {
      const i = this.sessions.indexOf(s);
      if (i >= 0) this.sessions.splice(i, 1);
      const lane = this.lanes.indexOf(s);
      if (lane >= 0) this.lanes[lane] = undefined;
      this.checkGone();
    });
    this.sessions.push(h2);
    if (this.retired) h2.drain();
    return h2;
  }

  private responseOf(stream: http2.ClientHttp2Stream, request: KubeHttpRequest): Promise<KubeStreamResponse> {
    const { method, path, signal } = request;
    return new Promise<KubeStreamResponse>((resolve, reject) => {
      let answered = false;
      const fail = (err: unknown): void => {
        if (answered) return;
        answered = true;
        reject(
          signal?.aborted === true
            ? signal.reason
            : new KubeTransportError(
                method,
                path,
                failureOf(err, 'ConnectionReset'),
                `HTTP/2 stream to ${this.origin} failed: ${messageOf(err)}`,
                err,
              ),
        );
      };
      const onAbort = (): void => {
        const reason: unknown = signal?.reason;
        fail(reason);
        // A response read to its end leaves nothing to cancel: its stream closes on its own, with no RST_STREAM.
        if (!stream.destroyed && !stream.readableEnded) {
          stream.close(process.getBuiltinModule('node:http2').constants.NGHTTP2_CANCEL);
          stream.destroy(reason instanceof Error ? reason : new Error(String(reason)));
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // Errors after the response belong to its reader; before it listens they must not be unhandled.
      stream.on('error', (err) => fail(err));
      stream.once('close', () => {
        signal?.removeEventListener('abort', onAbort);
        fail(new Error(`stream closed before the response head (RST_STREAM code ${stream.rstCode ?? 'none'})`));
      });
      stream.once('response', (h) => {
        if (answered) return;
        answered = true;
        resolve({ status: Number(h[':status'] ?? 0), headers: flatHeaders(h), body: stream, protocol: 'h2' });
      });
      if (request.body !== undefined) stream.end(request.body);
      if (signal?.aborted === true) onAbort();
    });
  }

  private async requestHttp1(prepared: PreparedRequest, request: KubeHttpRequest): Promise<KubeStreamResponse> {
    // Keep-alive: a response read to its end hands its socket to the next request (free sockets do not hold the event loop).
    this.agent ??= prepared.plain
      ? new (process.getBuiltinModule('node:http').Agent)({ keepAlive: true, scheduling: 'lifo' })
      : new (process.getBuiltinModule('node:https').Agent)({ keepAlive: true, scheduling: 'lifo' });
    this.http1Active += 1;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      this.http1Active -= 1;
      if (this.retired && this.http1Active === 0) {
        this.agent?.destroy();
        this.checkGone();
      }
    };
    try {
      const res = await http1Request(prepared, request, this.agent, (reused) => {
        if (!reused) this.settings.onConnectionOpened();
      });
      this.http1Bodies.add(res.body);
      res.body.once('close', () => {
        this.http1Bodies.delete(res.body);
        finish();
      });
      return res;
    } catch (err) {
      finish();
      throw err;
    }
  }

  private checkGone(): void {
    if (this.retired && this.sessions.length === 0 && this.http1Active === 0 && this.connecting === undefined) this.onGone(this);
  }
}

/** The HTTP/2 request headers of `request`: pseudo-headers, the KubeConfig's (Authorization included), lower case, no connection-specific ones. */
function h2Headers(prepared: PreparedRequest, request: KubeHttpRequest): http2.OutgoingHttpHeaders {
  const headers: http2.OutgoingHttpHeaders = { ':method': request.method, ':path': prepared.url.pathname + prepared.url.search };
  for (const [k, v] of Object.entries(prepared.options.headers ?? {})) {
    const name = k.toLowerCase();
    if (v !== undefined && !HOP_BY_HOP.has(name)) headers[name] = v;
  }
  const auth = prepared.options.auth;
  if (auth !== undefined && auth !== null && headers.authorization === undefined) {
    headers.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
  }
  if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
  return headers;
}

/** A TLS connection to `url` offering h2 and http/1.1 by ALPN, connected (or rejected) within `timeoutMs`. */
function negotiate(url: URL, settings: TlsSettings, timeoutMs: number): Promise<tls.TLSSocket> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? 443 : Number(url.port);
  return new Promise<tls.TLSSocket>((resolve, reject) => {
    const options: tls.ConnectionOptions = { ...settings, host, port, ALPNProtocols: ['h2', 'http/1.1'] };
    // An IP literal is not a valid SNI name; a hostname is, unless the KubeConfig names another.
    if (settings.servername === undefined && process.getBuiltinModule('node:net').isIP(host) === 0) options.servername = host;
    const socket = process.getBuiltinModule('node:tls').connect(options);
    const timer = setTimeout(() => {
      socket.destroy(new KubeTransportError('CONNECT', url.origin, 'NetworkError', `no TLS connection within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.removeListener('error', onError);
      // Later socket errors surface through the HTTP/2 session.
      socket.on('error', () => undefined);
      resolve(socket);
    });
    const onError = (err: Error): void => {
      clearTimeout(timer);
      reject(err);
    };
    socket.once('error', onError);
  });
}

/** Resolves once the server's first SETTINGS frame arrived (so `maxConcurrentStreams` is known). */
function settingsOf(session: http2.ClientHttp2Session, origin: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error): void => {
      clearTimeout(timer);
      session.removeListener('remoteSettings', onSettings);
      session.removeListener('error', onError);
      session.removeListener('close', onClose);
      if (err === undefined) resolve();
      else {
        session.destroy();
        reject(err);
      }
    };
    const onSettings = (): void => done();
    const onError = (err: Error): void => done(err);
    const onClose = (): void => done(new Error(`the HTTP/2 session to ${origin} closed before the server's SETTINGS`));
    const timer = setTimeout(() => done(new Error(`no HTTP/2 SETTINGS from ${origin} within ${timeoutMs} ms`)), timeoutMs);
    session.once('remoteSettings', onSettings);
    session.once('error', onError);
    session.once('close', onClose);
  });
}

/** `promise`, or `signal.reason` as soon as the signal aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}
