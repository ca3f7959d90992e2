import { afterEach, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { MetricsServer } from './MetricsServer.js';
import type { StatusPageSource } from './statusPage/StatusPageSource.js';

describe('MetricsServer', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  const statusPage: StatusPageSource = {
    status: () => ({ generatedAt: '2026-12-01T10:00:00.000Z', parents: [{ ageMs: 1234.5678 }], informers: [{ idleMs: 3.14159 }] }),
    explain: () => ({}),
  };

  it('lists its endpoints at /, as links, escaping and encoding status page names', async () => {
    server = await MetricsServer.start({ registry: new Registry(), status: { informers: () => ({}), 'a<b': () => ({}) }, statusPage });
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    const html = await res.text();
    const links = [...html.matchAll(/<a href="([^"]*)">/g)].map((m) => m[1]);
    expect(links).toEqual([
      '/metrics',
      '/healthz',
      '/readyz',
      '/statusz',
      '/statusz/status.json',
      '/statusz/explain',
      '/statusz/informers',
      '/statusz/a%3Cb',
    ]);
    expect(html).toContain('JSON status: a&#60;b');
    expect(html).not.toContain('a<b');
  });

  it('leaves the status page out of the index when it is off', async () => {
    server = await MetricsServer.start({ registry: new Registry() });
    const html = await (await fetch(`${server.url}/`)).text();
    expect([...html.matchAll(/<a href="([^"]*)">/g)].map((m) => m[1])).toEqual(['/metrics', '/healthz', '/readyz']);
  });

  it('rounds the durations of status.json and of the JSON status pages', async () => {
    server = await MetricsServer.start({
      registry: new Registry(),
      status: { informers: () => [{ gvr: '/v1/configmaps', idleMs: 15234.987, failing: { forMs: 0.4567, consecutive: 3 } }] },
      statusPage,
    });
    expect(await (await fetch(`${server.url}/statusz/status.json`)).json()).toEqual({
      generatedAt: '2026-12-01T10:00:00.000Z',
      parents: [{ ageMs: 1235 }],
      informers: [{ idleMs: 3.1 }],
    });
    expect(await (await fetch(`${server.url}/statusz/informers`)).json()).toEqual([
      { gvr: '/v1/configmaps', idleMs: 15235, failing: { forMs: 0.5, consecutive: 3 } },
    ]);
  });
});
