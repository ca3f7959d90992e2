import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '@protean/core/testing';
import { KubeConnectionPool } from './KubeConnectionPool.js';
import { KubeTransportError } from './KubeTransportError.js';
import { makeTestPki, type TestPki } from './testPki.testkit.js';
import { kubeConfigFor, SilentRelay, startServer, twoLanes, type TestServer } from './testServers.testkit.js';
import { firstChunk, text } from './bodies.testkit.js';
import { sharedConnectionPool } from './sharedConnectionPool.js';
import { requestOnNewConnection } from './requestOnNewConnection.js';

let pki: TestPki;
const cleanups: (() => unknown)[] = [];

beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => pki.dispose());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(kind: 'h2' | 'https1' | 'http1', options: { maxConcurrentStreams?: number } = {}): Promise<TestServer> {
  const s = await startServer(kind, pki, options);
  cleanups.push(() => s.close());
  return s;
}

function pool(kc: KubeConfig, options?: ConstructorParameters<typeof KubeConnectionPool>[1]): KubeConnectionPool {
  const p = new KubeConnectionPool(kc, options);
  cleanups.push(() => p.close());
  return p;
}

const get = (path: string, signal?: AbortSignal) => ({ method: 'GET' as const, path, headers: { accept: 'text/plain' }, signal });

describe('KubeConnectionPool over HTTP/2', () => {
  it('multiplexes 50 concurrent streams over one TCP connection', async () => {
    const s = await server('h2');
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    const responses = await Promise.all(Array.from({ length: 50 }, () => p.request(get('/hold'))));
    expect(responses.every((r) => r.status === 200 && r.protocol === 'h2')).toBe(true);
    await Promise.all(responses.map((r) => firstChunk(r.body)));
    expect(s.held()).toBe(50);
    expect(s.connections()).toBe(1);
    expect(p.stats()).toMatchObject({ connections: 1, http2Sessions: 1, activeStreams: 50, connectionsOpened: 1 });
    s.releaseHeld();
    for (const r of responses) r.body.resume();
    await waitFor(() => p.stats().activeStreams === 0, { message: 'every stream to end' });
    // The same collection (the path up to its query): the same connection.
    expect((await p.send(get('/hold?after'))).body).toBe('ok /hold?after');
    expect(s.connections()).toBe(1);
  });

  it('spreads collections over two connections by default: each collection on one, whatever its query', async () => {
    const s = await server('h2');
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    const lanes = twoLanes(2);
    const held = await Promise.all(lanes.flatMap((c) => [p.request(get(`${c}?limit=500`)), p.request(get(`${c}?watch=true`))]));
    expect(s.connections()).toBe(2);
    expect(p.stats()).toMatchObject({ connections: 2, http2Sessions: 2, activeStreams: 4, connectionsOpened: 2 });
    for (const c of lanes) expect(s.clientPortOf(`${c}?watch=true`)).toBe(s.clientPortOf(`${c}?limit=500`));
    expect(s.clientPortOf(`${lanes[0]}?watch=true`)).not.toBe(s.clientPortOf(`${lanes[1]}?watch=true`));
    s.releaseHeld();
    await Promise.all(held.map((r) => text(r.body)));
  });

  it('opens wide flow-control windows, so many streams on one session are not throttled to 64 KiB', async () => {
    const s = await server('h2');
    await pool(kubeConfigFor(s.url, pki, { token: 't' })).send(get('/a'));
    await waitFor(() => (s.flowWindows()[0]?.sessionWindow ?? 0) > 65_535, { message: 'the session window update' });
    expect(s.flowWindows()).toEqual([{ streamWindow: 4 * 1024 * 1024, sessionWindow: expect.any(Number) }]);
    expect(s.flowWindows()[0]?.sessionWindow).toBeGreaterThan(32 * 1024 * 1024 - 65_536);

    const narrow = await server('h2');
    await pool(kubeConfigFor(narrow.url, pki, { token: 't' }), { streamWindowBytes: 65_535, connectionWindowBytes: 65_535 }).send(
      get('/a'),
    );
    expect(narrow.flowWindows()).toEqual([{ streamWindow: 65_535, sessionWindow: expect.any(Number) }]);
    expect(narrow.flowWindows()[0]?.sessionWindow).toBeLessThanOrEqual(65_535);
  });

  it('sends the token of each request in its own headers, on the same session', async () => {
    const s = await server('h2');
    const kc = kubeConfigFor(s.url, pki, { token: 'token-1' });
    const p = pool(kc);
    await p.send(get('/a'));
    kc.users = kc.users.map((u) => ({ ...u, token: 'token-2' }));
    await p.send(get('/a?again'));
    expect(s.seen.map((r) => r.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(s.connections()).toBe(1);
  });

  it('opens a new session for a rotated client certificate while the old one drains its streams and closes', async () => {
    const s = await server('h2');
    const kc = kubeConfigFor(s.url, pki, { client: pki.client('alice') });
    const p = pool(kc);
    const watch = await p.request(get('/hold'));
    expect(await firstChunk(watch.body)).toBe('held\n');
    const bob = pki.client('bob');
    kc.users = kc.users.map((u) => ({
      ...u,
      certData: Buffer.from(bob.certPem).toString('base64'),
      keyData: Buffer.from(bob.keyPem).toString('base64'),
    }));
    expect((await p.send(get('/as-bob'))).status).toBe(200);
    expect(s.seen.map((r) => [r.path, r.clientCn])).toEqual([
      ['/hold', 'alice'],
      ['/as-bob', 'bob'],
    ]);
    expect(s.connections()).toBe(2);
    expect(p.stats().servers.map((c) => c.retired)).toEqual([true, false]);
    // The old stream keeps going on the old session until it ends; then that session closes.
    s.releaseHeld();
    expect(await text(watch.body)).toBe('released\n');
    await waitFor(() => s.openConnections() === 1, { message: 'the old session to close' });
    expect(p.stats()).toMatchObject({ http2Sessions: 1, servers: [{ retired: false }] });
  });

  it("opens another session when the server's maxConcurrentStreams is reached", async () => {
    const s = await server('h2', { maxConcurrentStreams: 2 });
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    const responses = await Promise.all(Array.from({ length: 5 }, () => p.request(get('/hold'))));
    expect(s.held()).toBe(5);
    expect(s.connections()).toBe(3);
    expect(p.stats()).toMatchObject({ http2Sessions: 3, activeStreams: 5, servers: [{ maxConcurrentStreams: 2 }] });
    s.releaseHeld();
    await Promise.all(responses.map((r) => text(r.body)));
  });

  it('PINGs a silent session and fails its streams with ConnectionReset when no answer comes; the next request connects again', async () => {
    const s = await server('h2');
    const relay = await SilentRelay.start(Number(new URL(s.url).port));
    cleanups.push(() => relay.close());
    const p = pool(kubeConfigFor(`https://127.0.0.1:${relay.port}`, pki, { token: 't' }), { readIdleTimeoutMs: 100, pingTimeoutMs: 100 });
    const watches = await Promise.all([p.request(get('/hold')), p.request(get('/hold'))]);
    await Promise.all(watches.map((w) => firstChunk(w.body)));
    relay.blackhole();
    const failures = watches.map((w) =>
      text(w.body).then(
        () => undefined,
        (err: unknown) => err,
      ),
    );
    for (const err of await Promise.all(failures)) {
      expect(err).toBeInstanceOf(KubeTransportError);
      expect((err as KubeTransportError).reason).toBe('ConnectionReset');
      expect((err as KubeTransportError).message).toMatch(/no answer to an HTTP\/2 PING within 100 ms/);
    }
    await waitFor(() => p.stats().http2Sessions === 0, { message: 'the dead session to go' });
    expect((await p.send(get('/again'))).body).toBe('ok /again');
    expect(p.stats()).toMatchObject({ http2Sessions: 1, connectionsOpened: 2 });
  });

  it('keeps a quiet but live session: its PINGs are answered and its streams go on', async () => {
    const s = await server('h2');
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }), { readIdleTimeoutMs: 20, pingTimeoutMs: 5000 });
    const watch = await p.request(get('/hold'));
    await firstChunk(watch.body);
    await waitFor(() => s.pings() >= 5, { message: 'five PINGs of the quiet session' });
    expect(s.connections()).toBe(1);
    expect(p.stats()).toMatchObject({ http2Sessions: 1, activeStreams: 1 });
    s.releaseHeld();
    expect(await text(watch.body)).toBe('released\n');
  });
});

describe('KubeConnectionPool over HTTP/1.1', () => {
  it('falls back to HTTP/1.1 keep-alive when the server does not offer h2, reusing its connection', async () => {
    const s = await server('https1');
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    const first = await p.request(get('/one'));
    expect(first.protocol).toBe('http/1.1');
    expect(await text(first.body)).toBe('ok /one');
    expect((await p.send(get('/two'))).body).toBe('ok /two');
    expect((await p.send(get('/three'))).body).toBe('ok /three');
    // One probe connection that found no h2, then one kept-alive connection for all three.
    expect(s.connections()).toBe(2);
    expect(s.seen.map((r) => r.protocol)).toEqual(['http/1.1', 'http/1.1', 'http/1.1']);
    expect(p.stats()).toMatchObject({ http2Sessions: 0, http1Sockets: 1, servers: [{ protocol: 'http/1.1' }] });
  });

  it('opens one HTTP/1.1 connection per concurrent stream (no multiplexing), and reuses them afterwards', async () => {
    const s = await server('https1');
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    const held = await Promise.all([p.request(get('/hold')), p.request(get('/hold')), p.request(get('/hold'))]);
    expect(p.stats()).toMatchObject({ http1Sockets: 3, activeStreams: 3 });
    s.releaseHeld();
    await Promise.all(held.map((r) => text(r.body)));
    await waitFor(() => p.stats().activeStreams === 0, { message: 'the streams to end' });
    const before = s.connections();
    await Promise.all([p.send(get('/a')), p.send(get('/b')), p.send(get('/c'))]);
    expect(s.connections()).toBe(before);
  });

  it('speaks HTTP/1.1 keep-alive to a plain http server (no ALPN, no probe)', async () => {
    const s = await server('http1');
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    expect((await p.send(get('/a'))).body).toBe('ok /a');
    expect((await p.send(get('/b'))).body).toBe('ok /b');
    expect(s.connections()).toBe(1);
    expect(s.seen.map((r) => r.authorization)).toEqual(['Bearer t', 'Bearer t']);
  });

  it('uses a new connection for a rotated client certificate and closes the old one once drained', async () => {
    const s = await server('https1');
    const kc = kubeConfigFor(s.url, pki, { client: pki.client('carol') });
    const p = pool(kc);
    await p.send(get('/as-carol'));
    const dave = pki.client('dave');
    kc.users = kc.users.map((u) => ({
      ...u,
      certData: Buffer.from(dave.certPem).toString('base64'),
      keyData: Buffer.from(dave.keyPem).toString('base64'),
    }));
    await p.send(get('/as-dave'));
    expect(s.seen.map((r) => r.clientCn)).toEqual(['carol', 'dave']);
    await waitFor(() => p.stats().servers.length === 1, { message: 'the retired connection to close' });
    expect(p.stats().http1Sockets).toBe(1);
  });
});

describe.each(['h2', 'https1'] as const)('KubeConnectionPool (%s) requests', (kind) => {
  it('resolves for any status, with lower-case headers, and sends a body', async () => {
    const s = await server(kind);
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    const missing = await p.send(get('/missing'));
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json');
    const posted = await p.send({ method: 'POST', path: '/post?x=1', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(posted).toMatchObject({ status: 200, body: 'ok /post?x=1 hello' });
    expect(posted.headers['x-test']).toBe('yes');
  });

  it('rejects with the signal reason when aborted before the response, and destroys the body when aborted after', async () => {
    const s = await server(kind);
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    const early = new AbortController();
    const reason = new Error('stop now');
    early.abort(reason);
    await expect(p.request(get('/a', early.signal))).rejects.toBe(reason);
    const late = new AbortController();
    const res = await p.request(get('/hold', late.signal));
    await firstChunk(res.body);
    const lateReason = new Error('stop reading');
    const failed = text(res.body).then(
      () => 'ended',
      (err: unknown) => err,
    );
    late.abort(lateReason);
    expect(await failed).toBe(lateReason);
    await waitFor(() => p.stats().activeStreams === 0, { message: 'the aborted stream to be freed' });
    await waitFor(() => s.held() === 0, { message: 'the server to see the stream closed' });
  });

  it('fails the open streams with ConnectionReset on close(), and connects again afterwards', async () => {
    const s = await server(kind);
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }));
    const res = await p.request(get('/hold'));
    await firstChunk(res.body);
    const failed = text(res.body).then(
      () => undefined,
      (err: unknown) => err,
    );
    p.close();
    const err = await failed;
    expect(err).toBeInstanceOf(KubeTransportError);
    expect((err as KubeTransportError).reason).toBe('ConnectionReset');
    expect(p.stats().connections).toBe(0);
    await waitFor(() => s.openConnections() === 0, { message: 'the server to see every connection closed' });
    expect((await p.send(get('/again'))).body).toBe('ok /again');
  });
});

describe('KubeConnectionPool errors and options', () => {
  it('rejects with ConnectionRefused when nothing listens', async () => {
    const s = await server('h2');
    const url = s.url;
    await s.close();
    const p = pool(kubeConfigFor(url, pki, { token: 't' }));
    const err = await p.request(get('/a')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect((err as KubeTransportError).reason).toBe('ConnectionRefused');
    expect((err as KubeTransportError).message).toContain('GET /a');
  });

  it('rejects with NetworkError when the server certificate is not trusted', async () => {
    const s = await server('h2');
    const kc = kubeConfigFor(s.url, pki, { token: 't' });
    kc.clusters = kc.clusters.map(({ caData: _caData, ...c }) => c);
    const err = await pool(kc)
      .request(get('/a'))
      .catch((e: unknown) => e);
    expect((err as KubeTransportError).reason).toBe('NetworkError');
  });

  it('rejects with NoCluster when the KubeConfig has no current cluster', async () => {
    const s = await server('h2');
    const kc = kubeConfigFor(s.url, pki, { token: 't' });
    kc.clusters = [];
    const err = await pool(kc)
      .request(get('/a'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect(['NoCluster', 'CredentialsError']).toContain((err as KubeTransportError).reason);
  });

  it('names a bad option', () => {
    const kc = kubeConfigFor('https://127.0.0.1:1', pki, { token: 't' });
    expect(() => new KubeConnectionPool(kc, { pingTimeoutMs: 0 })).toThrow('options.pingTimeoutMs must be a positive number');
    expect(() => new KubeConnectionPool(kc, { readIdleTimeoutMs: Number.NaN })).toThrow(RangeError);
    expect(() => new KubeConnectionPool(kc, { streamWindowBytes: 1024 })).toThrow(
      'options.streamWindowBytes must be an integer from 65535',
    );
    expect(() => new KubeConnectionPool(kc, { connectionWindowBytes: 2 ** 31 })).toThrow(RangeError);
    for (const bad of [0, 1.5, -1, Number.NaN]) {
      expect(() => new KubeConnectionPool(kc, { http2Connections: bad })).toThrow(
        `options.http2Connections must be an integer >= 1, got ${String(bad)}`,
      );
    }
  });

  it('speaks HTTP/1.1 only with http2: false, even to a server that offers h2', async () => {
    const s = await server('h2');
    const p = pool(kubeConfigFor(s.url, pki, { token: 't' }), { http2: false });
    expect((await p.send(get('/a'))).body).toBe('ok /a');
    expect((await p.send(get('/b'))).body).toBe('ok /b');
    expect(s.seen.map((r) => r.protocol)).toEqual(['http/1.1', 'http/1.1']);
    expect(s.connections()).toBe(1);
    expect(p.stats().servers[0]?.protocol).toBe('http/1.1');
  });
});

describe('sharedConnectionPool and requestOnNewConnection', () => {
  it('gives one pool per KubeConfig object', () => {
    const a = kubeConfigFor('https://127.0.0.1:1', pki, { token: 't' });
    const b = kubeConfigFor('https://127.0.0.1:1', pki, { token: 't' });
    expect(sharedConnectionPool(a)).toBe(sharedConnectionPool(a));
    expect(sharedConnectionPool(a)).not.toBe(sharedConnectionPool(b));
  });

  it('requestOnNewConnection opens a connection per request', async () => {
    const s = await server('https1');
    const kc = kubeConfigFor(s.url, pki, { token: 't' });
    expect(await text((await requestOnNewConnection(kc, get('/a'))).body)).toBe('ok /a');
    expect(await text((await requestOnNewConnection(kc, get('/b'))).body)).toBe('ok /b');
    expect(s.connections()).toBe(2);
  });
});
