import type * as http2 from 'node:http2';
import type * as tls from 'node:tls';
import { KubeTransportError } from './KubeTransportError.js';

/** The timings of a shared HTTP/2 session (see `KubeConnectionPoolOptions`). */
export interface SessionTimings {
  readonly readIdleTimeoutMs: number;
  readonly pingTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

/** The peer's limit before its first SETTINGS frame says otherwise (RFC 9113 recommends at least 100). */
const ASSUMED_MAX_STREAMS = 100;

/**
 * One HTTP/2 session to an API server, shared by many streams: counts its
 * streams against the server's `maxConcurrentStreams`, PINGs the server
 * after `readIdleTimeoutMs` without a byte and destroys itself (failing
 * every stream) when no answer comes within `pingTimeoutMs`, and closes
 * after `idleTimeoutMs` without a stream. It holds the event loop only
 * while a stream is open.
 */
export class H2Session {
  /** Streams open on this session now. */
  active = 0;
  private draining = false;
  private lastBytes = 0;
  private lastReadAt = Date.now();
  private pinging = false;
  private readonly healthTimer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly session: http2.ClientHttp2Session,
    private readonly socket: tls.TLSSocket,
    private readonly origin: string,
    private readonly timings: SessionTimings,
    onClosed: (s: H2Session) => void,
  ) {
    session.on('error', () => undefined);
    session.once('goaway', () => {
      this.draining = true;
    });
    session.once('close', () => {
      this.draining = true;
      clearInterval(this.healthTimer);
      if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
      onClosed(this);
    });
    this.lastBytes = socket.bytesRead;
    // Checking twice per period notices read-idleness between one and one and a half periods after the last byte.
    this.healthTimer = setInterval(() => this.checkHealth(), Math.max(1, Math.floor(timings.readIdleTimeoutMs / 2)));
    this.healthTimer.unref();
    this.becameIdle();
  }

  /** The server's `maxConcurrentStreams`. */
  get maxStreams(): number {
    return this.session.remoteSettings.maxConcurrentStreams ?? ASSUMED_MAX_STREAMS;
  }

  /** Whether it takes new streams at all, full or not (it is not draining, closing or closed). */
  takesStreams(): boolean {
    return !this.draining && !this.session.closed && !this.session.destroyed;
  }

  /** Whether a new stream may be opened here now. */
  hasRoom(): boolean {
    return this.takesStreams() && this.active < this.maxStreams;
  }

  /** Opens a stream (throws what `session.request` throws). */
  open(headers: http2.OutgoingHttpHeaders, endStream: boolean): http2.ClientHttp2Stream {
    const stream = this.session.request(headers, { endStream });
    this.active += 1;
    if (this.active === 1) {
      if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      this.session.ref();
    }
    stream.once('close', () => {
      this.active -= 1;
      if (this.active === 0) this.becameIdle();
    });
    return stream;
  }

  /** No new streams; the session closes once its open streams end. */
  drain(): void {
    this.draining = true;
    if (!this.session.closed && !this.session.destroyed) this.session.close();
  }

  /** Ends the session now, failing its streams with `err`. */
  destroy(err?: Error): void {
    this.draining = true;
    if (!this.session.destroyed) this.session.destroy(err);
  }

  private becameIdle(): void {
    if (this.session.destroyed) return;
    this.session.unref();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.active === 0) this.drain();
    }, this.timings.idleTimeoutMs);
    this.idleTimer.unref();
  }

  private checkHealth(): void {
    if (this.session.destroyed || this.session.closed) return;
    const now = Date.now();
    const bytes = this.socket.bytesRead;
    if (bytes !== this.lastBytes) {
      this.lastBytes = bytes;
      this.lastReadAt = now;
      return;
    }
    const idleMs = now - this.lastReadAt;
    if (this.pinging || idleMs < this.timings.readIdleTimeoutMs) return;
    this.pinging = true;
    const { pingTimeoutMs } = this.timings;
    const timer = setTimeout(() => {
      this.destroy(
        new KubeTransportError(
          'PING',
          this.origin,
          'ConnectionReset',
          `no answer to an HTTP/2 PING within ${pingTimeoutMs} ms, after ${idleMs} ms without a byte from the server: the connection is dead`,
        ),
      );
    }, pingTimeoutMs);
    timer.unref();
    const acked = (err: Error | null): void => {
      clearTimeout(timer);
      this.pinging = false;
      if (err !== null && !this.session.destroyed) this.destroy(err);
    };
    try {
      if (!this.session.ping(acked)) acked(null);
    } catch {
      // A session closing meanwhile cannot be pinged; its streams end with it.
      clearTimeout(timer);
      this.pinging = false;
    }
  }
}
