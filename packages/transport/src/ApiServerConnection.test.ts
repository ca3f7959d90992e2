import * as http2 from 'node:http2';
import * as net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@protean/core/testing';
import { ApiServerConnection, type ConnectionSettings } from './ApiServerConnection.js';
import { applyCredentials } from './applyCredentials.js';
import type { KubeHttpRequest } from './KubeTransport.js';
import { KubeTransportError } from './KubeTransportError.js';
import type { KubeStreamResponse } from './KubeStreamResponse.js';
import { firstChunk, text } from './bodies.testkit.js';
import { makeTestPki, type TestPki } from './testPki.testkit.js';
import { kubeConfigFor, startServer, twoLanes, type ServerKind, type TestServer } from './testServers.testkit.js';

let pki: TestPki;
const cleanups: (() => unknown)[] = [];

beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => pki.dispose());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(kind: ServerKind, options: { maxConcurrentStreams?: number } = {}): Promise<TestServer> {
  const s = await startServer(kind, pki, options);
  cleanups.push(() => s.close());
  return s;
}

/** A connection to `url` (trusting the test CA, token auth) with what it reported: connections opened, whether it is gone. */
interface Harness {
  readonly connection: ApiServerConnection;
  /** Sends `request` the way the pool does: credentials applied first. */
  request(request: KubeHttpRequest): Promise<KubeStreamResponse>;
  opened(): number;
  gone(): number;
}

function connect(url: string, settings: Partial<ConnectionSettings> = {}): Harness {
  const kc = kubeConfigFor(url, pki, { token: 't' });
  let opened = 0;
  let gone = 0;
  const plain = url.startsWith('http:');
  const connection = new ApiServerConnection(
    new URL(url).origin,
    plain ? {} : { ca: pki.caPem },
    plain,
    {
      readIdleTimeoutMs: 60_000,
      pingTimeoutMs: 60_000,
      idleTimeoutMs: 60_000,
      connectTimeoutMs: 5_000,
      http2: true,
      http2Connections: 1,
      streamWindowBytes: 65_535,
      connectionWindowBytes: 65_535,
      onConnectionOpened: () => (opened += 1),
      ...settings,
    },
    () => (gone += 1),
  );
  cleanups.push(() => connection.destroy(new Error('test over')));
  return {
    connection,
    request: async (request) => {
      return connection.request(await applyCredentials(kc, request), request);
    },
    opened: () => opened,
    gone: () => gone,
  };
}

const get = (path: string): KubeHttpRequest => ({ method: 'GET', path, headers: { accept: 'text/plain' } });

/** Sends `/hold` and resolves once its first chunk arrived. */
async function hold(h: Harness): Promise<KubeStreamResponse> {
  const res = await h.request(get('/hold'));
  expect(await firstChunk(res.body)).toBe('held\n');
  return res;
}

describe('ApiServerConnection protocol', () => {
  it('speaks HTTP/2 when the server chooses h2 by ALPN, many streams on one session', async () => {
    const s = await server('h2');
    const h = connect(s.url);
    expect(h.connection.stats()).toMatchObject({ protocol: 'unknown', http2Sessions: 0, activeStreams: 0 });
    const held = await Promise.all([hold(h), hold(h), hold(h)]);
    expect(held.map((r) => r.protocol)).toEqual(['h2', 'h2', 'h2']);
    expect(h.connection.stats()).toEqual({
      origin: new URL(s.url).origin,
      protocol: 'h2',
      http2Sessions: 1,
      http1Sockets: 0,
      activeStreams: 3,
      maxConcurrentStreams: expect.any(Number),
      retired: false,
    });
    expect(h.opened()).toBe(1);
    expect(s.connections()).toBe(1);
    s.releaseHeld();
    for (const r of held) expect(await text(r.body)).toBe('released\n');
    await waitFor(() => h.connection.stats().activeStreams === 0, { message: 'every stream to end' });
  });

  it('cancels nothing when the signal aborts after the response was read to its end: the stream closes with no RST_STREAM', async () => {
    const s = await server('h2');
    const h = connect(s.url);
    const abort = new AbortController();
    const res = await h.request({ ...get('/done'), signal: abort.signal });
    const stream = res.body as http2.ClientHttp2Stream;
    await text(res.body);
    abort.abort(new Error('request closed'));
    if (!stream.closed) await new Promise((resolve) => stream.once('close', resolve));
    expect(stream.rstCode).toBe(http2.constants.NGHTTP2_NO_ERROR);
    expect(stream.destroyed).toBe(true);
  });

  it('cancels a stream whose response is still coming when the signal aborts (RST_STREAM CANCEL)', async () => {
    const s = await server('h2');
    const h = connect(s.url);
    const abort = new AbortController();
    const res = await h.request({ ...get('/hold'), signal: abort.signal });
    expect(await firstChunk(res.body)).toBe('held\n');
    const stream = res.body as http2.ClientHttp2Stream;
    res.body.on('error', () => {});
    abort.abort(new Error('request closed'));
    if (!stream.closed) await new Promise((resolve) => stream.once('close', resolve));
    expect(stream.rstCode).toBe(http2.constants.NGHTTP2_CANCEL);
    s.releaseHeld();
  });

  it('falls back to an HTTP/1.1 keep-alive agent when the server does not choose h2, after one probe connection', async () => {
    const s = await server('https1');
    const h = connect(s.url);
    const first = await h.request(get('/one'));
    expect(first.protocol).toBe('http/1.1');
    expect(await text(first.body)).toBe('ok /one');
    expect(await text((await h.request(get('/two'))).body)).toBe('ok /two');
    expect(h.connection.stats()).toMatchObject({
      protocol: 'http/1.1',
      http2Sessions: 0,
      http1Sockets: 1,
      maxConcurrentStreams: undefined,
    });
    // The probe that found no h2, then one kept-alive socket for both requests.
    expect(h.opened()).toBe(2);
    expect(s.connections()).toBe(2);
  });

  it('speaks HTTP/1.1 from the start, without a probe, with http2: false or to a plain http server', async () => {
    const h2Server = await server('h2');
    const off = connect(h2Server.url, { http2: false });
    expect(off.connection.stats().protocol).toBe('http/1.1');
    expect(await text((await off.request(get('/a'))).body)).toBe('ok /a');
    expect(h2Server.seen.map((r) => r.protocol)).toEqual(['http/1.1']);
    expect(off.opened()).toBe(1);

    const plainServer = await server('http1');
    const plain = connect(plainServer.url);
    expect(plain.connection.stats().protocol).toBe('http/1.1');
    expect(await text((await plain.request(get('/b'))).body)).toBe('ok /b');
    expect(plain.opened()).toBe(1);
  });
});

describe('ApiServerConnection sessions', () => {
  it('opens one connection for requests that all wait for the first connect', async () => {
    const s = await server('h2');
    const h = connect(s.url);
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => h.request(get(`/r${i}`))));
    expect(await Promise.all(responses.map((r) => text(r.body)))).toEqual(Array.from({ length: 10 }, (_, i) => `ok /r${i}`));
    expect(h.opened()).toBe(1);
    expect(s.connections()).toBe(1);
  });

  it("opens another session when every open one is at the server's maxConcurrentStreams", async () => {
    const s = await server('h2', { maxConcurrentStreams: 2 });
    const h = connect(s.url);
    const held = await Promise.all(Array.from({ length: 5 }, () => hold(h)));
    expect(h.connection.stats()).toMatchObject({ http2Sessions: 3, activeStreams: 5, maxConcurrentStreams: 2 });
    expect(h.opened()).toBe(3);
    s.releaseHeld();
    await Promise.all(held.map((r) => text(r.body)));
    await waitFor(() => h.connection.stats().activeStreams === 0, { message: 'every stream to end' });
    // Room again: a new request reuses an open session.
    expect(await text((await h.request(get('/after'))).body)).toBe('ok /after');
    expect(h.opened()).toBe(3);
  });

  it("spreads collections over http2Connections sessions, every request of one collection on its collection's", async () => {
    const s = await server('h2');
    const h = connect(s.url, { http2Connections: 2 });
    const [a, b] = twoLanes(2);
    const first = await h.request(get(`${a}?watch=true`));
    expect(h.connection.stats()).toMatchObject({ http2Sessions: 1, activeStreams: 1 });
    const more = await Promise.all([h.request(get(`${a}?limit=500`)), h.request(get(`${b}?watch=true`)), h.request(get(`${b}?limit=500`))]);
    expect(h.connection.stats()).toMatchObject({ http2Sessions: 2, activeStreams: 4 });
    expect(h.opened()).toBe(2);
    expect(s.clientPortOf(`${a}?limit=500`)).toBe(s.clientPortOf(`${a}?watch=true`));
    expect(s.clientPortOf(`${b}?limit=500`)).toBe(s.clientPortOf(`${b}?watch=true`));
    expect(s.clientPortOf(`${a}?watch=true`)).not.toBe(s.clientPortOf(`${b}?watch=true`));
    s.releaseHeld();
    await Promise.all([first, ...more].map((r) => text(r.body)));
  });

  it('takes the session another lane left when its own is gone, and opens none while one has room', async () => {
    const s = await server('h2', { maxConcurrentStreams: 1 });
    const h = connect(s.url, { http2Connections: 2 });
    const [a] = twoLanes(2);
    // The lane's own session is full: the stream goes to a new one rather than waiting.
    const held = await Promise.all([h.request(get(a)), h.request(get(a))]);
    expect(h.connection.stats()).toMatchObject({ http2Sessions: 2, activeStreams: 2 });
    s.releaseHeld();
    await Promise.all(held.map((r) => text(r.body)));
    // Lane 1 has no session of its own yet: it takes the open one lane 0 does not hold.
    const [, quick] = twoLanes(2, '/quick');
    expect(await text((await h.request(get(quick))).body)).toBe(`ok ${quick}`);
    expect(h.opened()).toBe(2);
  });

  it("gives a lane whose session got a GOAWAY the next session, and keeps the lane's requests there", async () => {
    const s = await server('h2');
    const h = connect(s.url, { http2Connections: 2 });
    const [a] = twoLanes(2);
    const before = await h.request(get(`${a}?watch=true`));
    s.goaway();
    // The session's own view: it takes no new streams once the GOAWAY arrived.
    const first = (h.connection as unknown as { sessions: Array<{ takesStreams(): boolean }> }).sessions[0];
    await waitFor(() => first?.takesStreams() === false, { message: 'the session to see the GOAWAY' });
    const after = await Promise.all([h.request(get(`${a}?limit=1`)), h.request(get(`${a}?limit=2`))]);
    expect(h.opened()).toBe(2);
    expect(s.clientPortOf(`${a}?limit=1`)).not.toBe(s.clientPortOf(`${a}?watch=true`));
    expect(s.clientPortOf(`${a}?limit=2`)).toBe(s.clientPortOf(`${a}?limit=1`));
    s.releaseHeld();
    await Promise.all([before, ...after].map((r) => text(r.body)));
  });

  it('fails the request with NetworkError naming the limit when the TLS handshake does not finish within connectTimeoutMs', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets = new Set<net.Socket>();
    silent.on('connection', (c) => sockets.add(c));
    cleanups.push(async () => {
      for (const c of sockets) c.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const h = connect(`https://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, { connectTimeoutMs: 50 });
    const err = await h.request(get('/a')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect(err).toMatchObject({ reason: 'NetworkError', method: 'GET', path: '/a' });
    expect((err as Error).message).toContain('no TLS connection within 50 ms');
  });
});

describe.each(['h2', 'https1'] as const)('ApiServerConnection (%s) retire and destroy', (kind) => {
  it('retire() keeps the open streams going, then closes and reports itself gone once they end', async () => {
    const s = await server(kind);
    const h = connect(s.url);
    const res = await hold(h);
    h.connection.retire();
    expect(h.connection.stats()).toMatchObject({ retired: true, activeStreams: 1 });
    expect(h.gone()).toBe(0);
    s.releaseHeld();
    expect(await text(res.body)).toBe('released\n');
    await waitFor(() => h.gone() === 1, { message: 'onGone once drained' });
    await waitFor(() => s.openConnections() === 0, { message: 'the server to see every connection closed' });
    expect(h.connection.stats()).toMatchObject({ http2Sessions: 0, http1Sockets: 0, activeStreams: 0 });
  });

  it('retire() with no request open closes its connections and reports itself gone', async () => {
    const s = await server(kind);
    const h = connect(s.url);
    expect(await text((await h.request(get('/a'))).body)).toBe('ok /a');
    await waitFor(() => h.connection.stats().activeStreams === 0, { message: 'the request to end' });
    h.connection.retire();
    await waitFor(() => h.gone() === 1, { message: 'onGone' });
    await waitFor(() => s.openConnections() === 0, { message: 'the server to see every connection closed' });
  });

  it('destroy(err) fails the open streams with err now and reports itself gone', async () => {
    const s = await server(kind);
    const h = connect(s.url);
    const held = await Promise.all([hold(h), hold(h)]);
    const reason = new Error('closing');
    h.connection.destroy(reason);
    const failures = await Promise.all(
      held.map((r) =>
        text(r.body).then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    expect(failures).toEqual([reason, reason]);
    await waitFor(() => h.gone() === 1, { message: 'onGone after destroy' });
    expect(h.connection.stats()).toMatchObject({ retired: true, activeStreams: 0 });
  });
});
