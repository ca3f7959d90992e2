import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import * as net from 'node:net';
import type * as tls from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { laneOf } from './ApiServerConnection.js';
import type { TestPki } from './testPki.testkit.js';

/** What a test server saw of one request. */
export interface SeenRequest {
  readonly path: string;
  readonly authorization: string | undefined;
  /** The CN of the client certificate presented on the connection, if any. */
  readonly clientCn: string | undefined;
  readonly protocol: string;
  /** The client's port of the TCP connection it came on: requests with the same one shared a connection. */
  readonly clientPort: number | undefined;
}

/** A request handler answering by path: `/hold` (and `/hold/...`) keeps the response open (head sent) until released, anything else answers `ok <path>`. */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A local test server counting its TCP connections. */
export interface TestServer {
  readonly url: string;
  readonly seen: SeenRequest[];
  /** The client port of the connection the first request for `path` (with its query) came on. */
  clientPortOf(path: string): number | undefined;
  /** TCP connections accepted so far. */
  connections(): number;
  /** TCP connections open now. */
  openConnections(): number;
  /** HTTP/2 PINGs received so far. */
  pings(): number;
  /** Per HTTP/2 session: the client's per-stream window (its SETTINGS) and how much the session may still send (the session window). */
  flowWindows(): { readonly streamWindow: number | undefined; readonly sessionWindow: number | undefined }[];
  /** Ends every response held open by `/hold`. */
  releaseHeld(): void;
  /** Responses held open now. */
  held(): number;
  /** Sends GOAWAY on every open HTTP/2 session (the server is going away: no new streams there, open ones finish). */
  goaway(): void;
  close(): Promise<void>;
}

function cnOf(socket: unknown): string | undefined {
  const s = socket as tls.TLSSocket | undefined;
  const cert = typeof s?.getPeerCertificate === 'function' ? s.getPeerCertificate() : undefined;
  const cn = cert?.subject?.CN;
  return typeof cn === 'string' ? cn : undefined;
}

export type ServerKind = 'h2' | 'https1' | 'http1';

/** A scripted answer: status and body (sent as `application/json`); undefined falls through to the default handler. */
export type Script = (method: string, url: string) => { status: number; body: string } | undefined;

/** Starts an HTTP/2 secure server (ALPN h2, HTTP/1.1 allowed too), an HTTPS server without h2, or a plain HTTP/1.1 server on 127.0.0.1. */
export async function startServer(
  kind: ServerKind,
  pki: TestPki,
  options: { maxConcurrentStreams?: number; script?: Script } = {},
): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const held = new Set<{ end(): void }>();
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  let accepted = 0;
  let pings = 0;
  const handler: Handler = (req, res) => {
    const socket = (req as { socket?: unknown }).socket;
    seen.push({
      path: req.url ?? '',
      authorization: req.headers.authorization,
      clientCn: cnOf(socket),
      protocol: req.httpVersion === '2.0' ? 'h2' : 'http/1.1',
      clientPort: (socket as { remotePort?: number } | undefined)?.remotePort,
    });
    const scripted = options.script?.(req.method ?? 'GET', req.url ?? '');
    if (scripted !== undefined) {
      req.resume();
      req.on('end', () => {
        res.writeHead(scripted.status, { 'content-type': 'application/json' });
        res.end(scripted.body);
      });
      return;
    }
    if (req.url === '/hold' || req.url?.startsWith('/hold/') === true) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('held\n');
      const entry = { end: () => res.end('released\n') };
      held.add(entry);
      res.on('close', () => held.delete(entry));
      return;
    }
    if (req.url === '/missing') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"kind":"Status","code":404}');
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-test': 'yes' });
      res.end(`ok ${req.url ?? ''}${body === '' ? '' : ` ${body}`}`);
    });
  };
  const tlsOpts = { key: pki.serverKeyPem, cert: pki.serverCertPem, ca: pki.caPem, requestCert: true, rejectUnauthorized: false };
  let server: net.Server;
  if (kind === 'h2') {
    server = http2.createSecureServer(
      {
        ...tlsOpts,
        allowHTTP1: true,
        settings: options.maxConcurrentStreams === undefined ? {} : { maxConcurrentStreams: options.maxConcurrentStreams },
      },
      // The HTTP/2 compatibility API has the same shape as far as this handler uses it.
      handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
    server.on('session', (session: http2.ServerHttp2Session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
      session.on('ping', () => (pings += 1));
    });
  } else if (kind === 'https1') {
    server = https.createServer({ ...tlsOpts, ALPNProtocols: ['http/1.1'] }, handler);
  } else {
    server = http.createServer({ keepAlive: true }, handler);
  }
  server.on('connection', (s: net.Socket) => {
    accepted += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `${kind === 'http1' ? 'http' : 'https'}://127.0.0.1:${port}`,
    seen,
    clientPortOf: (path) => seen.find((r) => r.path === path)?.clientPort,
    connections: () => accepted,
    openConnections: () => sockets.size,
    pings: () => pings,
    flowWindows: () =>
      [...sessions].map((x) => ({ streamWindow: x.remoteSettings.initialWindowSize, sessionWindow: x.state.remoteWindowSize })),
    releaseHeld: () => {
      for (const h of [...held]) h.end();
    },
    held: () => held.size,
    goaway: () => {
      // Every stream opened so far counts as processed, so they finish; only new ones are refused.
      for (const x of sessions) x.goaway(http2.constants.NGHTTP2_NO_ERROR, 2 ** 31 - 1);
    },
    close: async () => {
      for (const h of [...held]) h.end();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A KubeConfig for `url` trusting the test CA, authenticated by a token or a client certificate. */
export function kubeConfigFor(
  url: string,
  pki: TestPki,
  user: { token?: string; client?: { certPem: string; keyPem: string } },
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, caData: Buffer.from(pki.caPem).toString('base64'), skipTLSVerify: url.startsWith('http:') }],
    users: [
      {
        name: 'u',
        ...(user.token === undefined ? {} : { token: user.token }),
        ...(user.client === undefined
          ? {}
          : { certData: Buffer.from(user.client.certPem).toString('base64'), keyData: Buffer.from(user.client.keyPem).toString('base64') }),
      },
    ],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

/**
 * A loopback TCP relay that can go silent: {@link blackhole} keeps the
 * open connections open but forwards nothing more on them either way (a
 * half-open network path); connections made afterwards work.
 */
export class SilentRelay {
  private readonly pairs = new Set<{ silent: boolean }>();
  private readonly sockets = new Set<net.Socket>();
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<SilentRelay> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relay = new SilentRelay(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client) => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      const pair = { silent: false };
      relay.pairs.add(pair);
      for (const s of [client, upstream]) {
        relay.sockets.add(s);
        s.on('close', () => relay.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('data', (d: Buffer) => {
        if (!pair.silent) upstream.write(d);
      });
      upstream.on('data', (d: Buffer) => {
        if (!pair.silent) client.write(d);
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    return relay;
  }

  /** The connections open now go silent; new ones relay normally. */
  blackhole(): void {
    for (const p of this.pairs) p.silent = true;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Two collection paths under `prefix` (`/hold`: held open) in different lanes of `count` (see `laneOf`), the first in lane 0. */
export function twoLanes(count: number, prefix = '/hold'): [string, string] {
  const paths = Array.from({ length: 64 }, (_, i) => `${prefix}/kind${i}s`);
  const a = paths.find((p) => laneOf(p, count) === 0);
  const b = paths.find((p) => laneOf(p, count) === 1);
  if (a === undefined || b === undefined) throw new Error('no two paths in different lanes');
  return [a, b];
}
