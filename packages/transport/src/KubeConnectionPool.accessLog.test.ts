import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { AccessTransition } from './AccessLog.js';
import { KubeConnectionPool } from './KubeConnectionPool.js';
import { makeTestPki, type TestPki } from './testPki.testkit.js';
import { kubeConfigFor, startServer, type Script } from './testServers.testkit.js';
import { text } from './bodies.testkit.js';

let pki: TestPki;
const cleanups: (() => unknown)[] = [];

beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => pki.dispose());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DENIED_PATCH =
  'configmaps "a" is forbidden: User "system:serviceaccount:ctl:ctl" cannot patch resource "configmaps" in API group "" in the namespace "demo"';
const status = (code: number, message: string): string => JSON.stringify({ kind: 'Status', code, message, reason: 'Forbidden' });

/** A scripted API server: PATCHes of configmaps in demo are refused while `denyPatch` holds, secrets are never granted. */
function apiServer(state: { denyPatch: boolean }): Script {
  return (method, url) => {
    if (url === '/api/v1/namespaces/demo/configmaps/new?fieldManager=ctl') return { status: 201, body: '{}' };
    if (url.startsWith('/api/v1/namespaces/demo/configmaps/') && method === 'PATCH') {
      return state.denyPatch ? { status: 403, body: status(403, DENIED_PATCH) } : { status: 200, body: '{}' };
    }
    if (url.startsWith('/api/v1/secrets'))
      return { status: 403, body: status(403, 'secrets is forbidden: User "x" cannot watch resource "secrets"') };
    if (url.startsWith('/apis/demo.protean.dev/v1/namespaces/demo/webapps/shop/status')) return { status: 200, body: '{}' };
    if (url.startsWith('/api/') || url.startsWith('/apis')) return { status: 200, body: '{}' };
    return undefined;
  };
}

describe.each(['h2', 'http1'] as const)('KubeConnectionPool.accessLog over %s', (kind) => {
  async function setUp(state = { denyPatch: false }) {
    const server = await startServer(kind, pki, { script: apiServer(state) });
    cleanups.push(() => server.close());
    const pool = new KubeConnectionPool(kubeConfigFor(server.url, pki, { token: 't' }));
    cleanups.push(() => pool.close());
    return { server, pool, state };
  }
  const req = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string) => ({
    method,
    path,
    headers: {},
    ...(method === 'GET' ? {} : { body: '{}' }),
  });

  it('records every verb and path shape it sends, streamed or buffered', async () => {
    const { pool } = await setUp();
    await pool.send(req('GET', '/api/v1/namespaces/demo/configmaps/a'));
    await pool.send(req('GET', '/api/v1/configmaps?limit=500'));
    await text((await pool.request(req('GET', '/api/v1/configmaps?watch=true&allowWatchBookmarks=true'))).body);
    await pool.send(req('POST', '/api/v1/namespaces/demo/events'));
    await pool.send(req('PUT', '/apis/coordination.k8s.io/v1/namespaces/ctl/leases/leader'));
    await pool.send(req('PATCH', '/apis/demo.protean.dev/v1/namespaces/demo/webapps/shop/status'));
    await pool.send(req('DELETE', '/api/v1/namespaces/demo/configmaps/a'));
    await pool.send(req('DELETE', '/api/v1/namespaces/demo/configmaps'));
    await pool.send(req('GET', '/api/v1/namespaces/demo'));
    await pool.send(req('GET', '/apis/apps/v1'));
    await pool.send(req('GET', '/version'));
    expect(pool.accessLog.entries().map((e) => [e.key, e.status, e.denied])).toEqual([
      ['get||configmaps||demo', 200, false],
      ['list||configmaps||', 200, false],
      ['watch||configmaps||', 200, false],
      ['create||events||demo', 200, false],
      ['update|coordination.k8s.io|leases||ctl', 200, false],
      ['patch|demo.protean.dev|webapps|status|demo', 200, false],
      ['delete||configmaps||demo', 200, false],
      ['deletecollection||configmaps||demo', 200, false],
      ['get||namespaces||demo', 200, false],
      ['nonResource|get|/apis/apps/v1', 200, false],
      ['nonResource|get|/version', 200, false],
    ]);
  });

  it("records a buffered refusal with the server's message, and a streamed one by its status", async () => {
    const { pool } = await setUp({ denyPatch: true });
    const seen: [string, AccessTransition, string | undefined][] = [];
    pool.accessLog.onTransition((r, t) => seen.push([r.key, t, r.message]));
    expect((await pool.send(req('PATCH', '/api/v1/namespaces/demo/configmaps/a'))).status).toBe(403);
    expect((await pool.send(req('PATCH', '/api/v1/namespaces/demo/configmaps/b'))).status).toBe(403);
    const watch = await pool.request(req('GET', '/api/v1/secrets?watch=1'));
    expect(watch.status).toBe(403);
    // The streamed body is still the caller's to read.
    expect(await text(watch.body)).toContain('cannot watch resource');
    expect(pool.accessLog.denied().map((e) => [e.key, e.denials, e.message])).toEqual([
      ['patch||configmaps||demo', 2, DENIED_PATCH],
      ['watch||secrets||', 1, undefined],
    ]);
    expect(seen).toEqual([
      ['patch||configmaps||demo', 'denied', DENIED_PATCH],
      ['watch||secrets||', 'denied', undefined],
    ]);
  });

  it('tells when a refused access is allowed again', async () => {
    const { pool, state } = await setUp({ denyPatch: true });
    const seen: string[] = [];
    pool.accessLog.onTransition((r, t) => seen.push(`${t} ${r.key}`));
    await pool.send(req('PATCH', '/api/v1/namespaces/demo/configmaps/a'));
    state.denyPatch = false;
    await pool.send(req('PATCH', '/api/v1/namespaces/demo/configmaps/a'));
    await pool.send(req('PATCH', '/api/v1/namespaces/demo/configmaps/a'));
    expect(seen).toEqual(['denied patch||configmaps||demo', 'allowed patch||configmaps||demo']);
    expect(pool.accessLog.denied()).toEqual([]);
  });

  it('records create as well for an apply answered 201', async () => {
    const { pool } = await setUp();
    await pool.send(req('PATCH', '/api/v1/namespaces/demo/configmaps/new?fieldManager=ctl'));
    expect(pool.accessLog.entries().map((e) => e.key)).toEqual(['patch||configmaps||demo', 'create||configmaps||demo']);
  });

  it('records nothing for a request that got no answer', async () => {
    const { pool } = await setUp();
    const abort = new AbortController();
    abort.abort(new Error('gone'));
    await expect(pool.send({ ...req('GET', '/api/v1/namespaces/demo/configmaps/a'), signal: abort.signal })).rejects.toThrow('gone');
    expect(pool.accessLog.entries()).toEqual([]);
  });
});
