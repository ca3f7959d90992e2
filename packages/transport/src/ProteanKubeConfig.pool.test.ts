// ProteanKubeConfig behind the connection pool, against local TLS servers: what the server sees.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConnectionPool } from './KubeConnectionPool.js';
import { ProteanKubeConfig } from './ProteanKubeConfig.js';
import { sharedConnectionPool } from './sharedConnectionPool.js';
import { makeTestPki, type TestPki } from './testPki.testkit.js';
import { kubeConfigFor, startServer, type TestServer } from './testServers.testkit.js';

let pki: TestPki;
const cleanups: (() => unknown)[] = [];
beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => pki.dispose());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(kind: 'h2' | 'https1'): Promise<TestServer> {
  const s = await startServer(kind, pki);
  cleanups.push(() => s.close());
  return s;
}

function ours(url: string, user: Record<string, unknown>): ProteanKubeConfig {
  const kc = new ProteanKubeConfig();
  kc.loadFromObject({
    clusters: [{ name: 'c', cluster: { server: url, 'certificate-authority-data': Buffer.from(pki.caPem).toString('base64') } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });
  return kc;
}

const get = { method: 'GET' as const, path: '/api/v1/namespaces', headers: { accept: 'text/plain' } };

describe.each(['h2', 'https1'] as const)('ProteanKubeConfig through a KubeConnectionPool (%s)', (kind) => {
  it('authenticates with a client certificate, verifying the server against the KubeConfig CA', async () => {
    const s = await server(kind);
    const client = pki.client('alice');
    const pool = new KubeConnectionPool(
      ours(s.url, {
        'client-certificate-data': Buffer.from(client.certPem).toString('base64'),
        'client-key-data': Buffer.from(client.keyPem).toString('base64'),
      }),
    );
    cleanups.push(() => pool.close());
    const res = await pool.send(get);
    expect(res.status).toBe(200);
    expect(s.seen.map((r) => [r.clientCn, r.authorization])).toEqual([['alice', undefined]]);
  });

  it('sends the bearer token on every request', async () => {
    const s = await server(kind);
    const pool = new KubeConnectionPool(ours(s.url, { token: 'tok' }));
    cleanups.push(() => pool.close());
    await pool.send(get);
    await pool.send(get);
    expect(s.seen.map((r) => r.authorization)).toEqual(['Bearer tok', 'Bearer tok']);
  });
});

describe('sharedConnectionPool with either KubeConfig', () => {
  it('keeps one pool per config object, for ProteanKubeConfig and client-node KubeConfig alike', async () => {
    const s = await server('h2');
    const a = ours(s.url, { token: 'a' });
    const b = kubeConfigFor(s.url, pki, { token: 'b' });
    cleanups.push(
      () => sharedConnectionPool(a).close(),
      () => sharedConnectionPool(b).close(),
    );
    expect(sharedConnectionPool(a)).toBe(sharedConnectionPool(a));
    expect(sharedConnectionPool(b)).toBe(sharedConnectionPool(b));
    expect(sharedConnectionPool(a)).not.toBe(sharedConnectionPool(b));
    await sharedConnectionPool(a).send(get);
    await sharedConnectionPool(b).send(get);
    expect(s.seen.map((r) => r.authorization)).toEqual(['Bearer a', 'Bearer b']);
  });
});
