import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConnectionPool } from './KubeConnectionPool.js';
import { makeTestPki, type TestPki } from './testPki.testkit.js';
import { kubeConfigFor, startServer } from './testServers.testkit.js';

let pki: TestPki;
const cleanups: (() => unknown)[] = [];

beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => pki.dispose());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

class Refused extends Error {
  override readonly name = 'Refused';
}

describe.each(['h2', 'https1', 'http1'] as const)('beforeSend over %s', (kind) => {
  async function setUp() {
    const server = await startServer(kind, pki);
    cleanups.push(() => server.close());
    const pool = new KubeConnectionPool(kubeConfigFor(server.url, pki, { token: 't' }));
    cleanups.push(() => pool.close());
    return { server, pool };
  }

  it('runs after connecting, right before the request is handed over, and a throw sends nothing', async () => {
    const { server, pool } = await setUp();
    // Connected: the next request finds a connection (or, for HTTP/1.1, the agent) ready.
    await pool.send({ method: 'GET', path: '/warm', headers: {} });
    const calls: number[] = [];
    const refused = new Refused('the lease ended');
    const attempt = pool.send({
      method: 'POST',
      path: '/write',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      beforeSend: () => {
        calls.push(server.seen.length);
        throw refused;
      },
    });
    await expect(attempt).rejects.toBe(refused);
    expect(calls).toEqual([1]);
    // One more request proves the refused one never reached the server (requests on one connection arrive in order).
    await pool.send({ method: 'GET', path: '/after', headers: {} });
    expect(server.seen.map((r) => r.path)).toEqual(['/warm', '/after']);
  });

  it('sends the request when beforeSend returns', async () => {
    const { server, pool } = await setUp();
    let called = 0;
    const res = await pool.send({ method: 'GET', path: '/ok', headers: {}, beforeSend: () => void called++ });
    expect(res.status).toBe(200);
    expect(called).toBe(1);
    expect(server.seen.map((r) => r.path)).toEqual(['/ok']);
  });
});
