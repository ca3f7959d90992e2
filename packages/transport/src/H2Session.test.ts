import { once } from 'node:events';
import * as http2 from 'node:http2';
import * as tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@protean/core/testing';
import { H2Session, type SessionTimings } from './H2Session.js';
import { KubeTransportError } from './KubeTransportError.js';
import { firstChunk, text } from './bodies.testkit.js';
import { makeTestPki, type TestPki } from './testPki.testkit.js';
import { SilentRelay, startServer, type TestServer } from './testServers.testkit.js';

let pki: TestPki;
const cleanups: (() => unknown)[] = [];

beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => pki.dispose());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(options: { maxConcurrentStreams?: number } = {}): Promise<TestServer> {
  const s = await startServer('h2', pki, options);
  cleanups.push(() => s.close());
  return s;
}

/** Timings long enough never to fire unless a test shortens one. */
const QUIET: SessionTimings = { readIdleTimeoutMs: 60_000, pingTimeoutMs: 60_000, idleTimeoutMs: 60_000 };

/** An {@link H2Session} over a TLS connection to `port` (ALPN h2), once the server's SETTINGS arrived; `closed()` counts `onClosed` calls. */
async function sessionTo(port: number, timings: Partial<SessionTimings> = {}): Promise<{ h2: H2Session; closed: () => number }> {
  const socket = tls.connect({ host: '127.0.0.1', port, ca: pki.caPem, ALPNProtocols: ['h2'] });
  await once(socket, 'secureConnect');
  socket.on('error', () => undefined);
  const session = http2.connect(`https://127.0.0.1:${port}`, { createConnection: () => socket });
  await once(session, 'remoteSettings');
  let closed = 0;
  const h2 = new H2Session(session, socket, `https://127.0.0.1:${port}`, { ...QUIET, ...timings }, () => (closed += 1));
  cleanups.push(() => h2.destroy());
  return { h2, closed: () => closed };
}

const portOf = (s: TestServer): number => Number(new URL(s.url).port);
const get = (path: string): http2.OutgoingHttpHeaders => ({ ':method': 'GET', ':path': path });

/** Opens `/hold` and resolves once its first chunk arrived (the server holds the rest until released). */
async function hold(h2: H2Session): Promise<http2.ClientHttp2Stream> {
  const stream = h2.open(get('/hold'), true);
  expect(await firstChunk(stream)).toBe('held\n');
  return stream;
}

/** The error `stream` fails with (or `undefined` when it ends). */
const failureOf = (stream: http2.ClientHttp2Stream): Promise<unknown> =>
  text(stream).then(
    () => undefined,
    (err: unknown) => err,
  );

describe('H2Session streams', () => {
  it('counts each open stream and releases it when the stream closes', async () => {
    const s = await server();
    const { h2 } = await sessionTo(portOf(s));
    const streams = await Promise.all([hold(h2), hold(h2), hold(h2)]);
    expect(h2.active).toBe(3);
    s.releaseHeld();
    for (const stream of streams) expect(await text(stream)).toBe('released\n');
    await waitFor(() => h2.active === 0, { message: 'every stream to be released' });
    expect(h2.hasRoom()).toBe(true);
  });

  it("has room up to the server's maxConcurrentStreams, and again once a stream ends", async () => {
    const s = await server({ maxConcurrentStreams: 2 });
    const { h2 } = await sessionTo(portOf(s));
    expect(h2.maxStreams).toBe(2);
    const held = await hold(h2);
    const quick = h2.open(get('/quick'), true);
    expect(h2.active).toBe(2);
    expect(h2.hasRoom()).toBe(false);
    expect(await text(quick)).toBe('ok /quick');
    await waitFor(() => h2.hasRoom(), { message: 'room after one stream ended' });
    expect(h2.active).toBe(1);
    s.releaseHeld();
    await text(held);
  });
});

describe('H2Session health', () => {
  it('PINGs a session silent for readIdleTimeoutMs and, without an answer within pingTimeoutMs, destroys it and fails its streams', async () => {
    const s = await server();
    const relay = await SilentRelay.start(portOf(s));
    cleanups.push(() => relay.close());
    const { h2, closed } = await sessionTo(relay.port, { readIdleTimeoutMs: 50, pingTimeoutMs: 50 });
    const streams = await Promise.all([hold(h2), hold(h2)]);
    relay.blackhole();
    for (const err of await Promise.all(streams.map(failureOf))) {
      expect(err).toBeInstanceOf(KubeTransportError);
      expect(err).toMatchObject({ method: 'PING', reason: 'ConnectionReset' });
      expect((err as Error).message).toMatch(/no answer to an HTTP\/2 PING within 50 ms, after \d+ ms without a byte/);
    }
    await waitFor(() => closed() === 1, { message: 'onClosed for the dead session' });
    expect(h2.hasRoom()).toBe(false);
    expect(h2.active).toBe(0);
  });

  it('keeps a quiet session whose PINGs are answered, with its stream open', async () => {
    const s = await server();
    const { h2, closed } = await sessionTo(portOf(s), { readIdleTimeoutMs: 20, pingTimeoutMs: 5_000 });
    const stream = await hold(h2);
    await waitFor(() => s.pings() >= 3, { message: 'three PINGs of the quiet session' });
    expect(closed()).toBe(0);
    expect(h2.hasRoom()).toBe(true);
    s.releaseHeld();
    expect(await text(stream)).toBe('released\n');
  });

  it('closes after idleTimeoutMs without a stream, and not while one is open', async () => {
    const s = await server();
    // PINGs every 20 ms of quiet serve as the witness that idleTimeoutMs passed several times over.
    const { h2, closed } = await sessionTo(portOf(s), { idleTimeoutMs: 30, readIdleTimeoutMs: 20 });
    const stream = await hold(h2);
    const pingsBefore = s.pings();
    await waitFor(() => s.pings() >= pingsBefore + 5, { message: 'five PINGs while the stream is open' });
    expect(closed()).toBe(0);
    expect(h2.hasRoom()).toBe(true);
    s.releaseHeld();
    await text(stream);
    await waitFor(() => closed() === 1, { message: 'the idle session to close' });
    await waitFor(() => s.openConnections() === 0, { message: 'the server to see the connection closed' });
  });
});

describe('H2Session shutdown', () => {
  it('takes no new streams after the server sends GOAWAY, finishes the open ones, then closes', async () => {
    const s = await server();
    const { h2, closed } = await sessionTo(portOf(s));
    const stream = await hold(h2);
    s.goaway();
    await waitFor(() => !h2.hasRoom(), { message: 'no room after GOAWAY' });
    expect(closed()).toBe(0);
    s.releaseHeld();
    expect(await text(stream)).toBe('released\n');
    await waitFor(() => closed() === 1, { message: 'the session to close once its stream ended' });
  });

  it('drain() takes no new streams, lets the open ones finish, then closes', async () => {
    const s = await server();
    const { h2, closed } = await sessionTo(portOf(s));
    const stream = await hold(h2);
    h2.drain();
    expect(h2.hasRoom()).toBe(false);
    s.releaseHeld();
    expect(await text(stream)).toBe('released\n');
    await waitFor(() => closed() === 1, { message: 'the drained session to close' });
    await waitFor(() => s.openConnections() === 0, { message: 'the server to see the connection closed' });
  });

  it('destroy(err) ends the session now, failing its open streams with err', async () => {
    const s = await server();
    const { h2, closed } = await sessionTo(portOf(s));
    const streams = await Promise.all([hold(h2), hold(h2)]);
    const reason = new Error('shut down');
    h2.destroy(reason);
    expect(h2.hasRoom()).toBe(false);
    expect(await Promise.all(streams.map(failureOf))).toEqual([reason, reason]);
    await waitFor(() => closed() === 1, { message: 'onClosed after destroy' });
    expect(h2.active).toBe(0);
  });
});
