import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { MetricsServer } from '../MetricsServer.js';
import type { ExplainQuery } from './parseExplainQuery.js';
import type { StatusPageSource } from './StatusPageSource.js';

/** An error shaped like `@protean/core`'s ExplainError. */
class FakeExplainError extends Error {
  override readonly name = 'ExplainError';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

describe('MetricsServer status page', () => {
  let server: MetricsServer | undefined;
  const asked: ExplainQuery[] = [];

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    asked.length = 0;
  });

  const source: StatusPageSource = {
    status: () => ({ generatedAt: '2026-12-01T10:00:00.000Z', parents: [{ gvr: 'demo.protean.dev/v1/webapps' }] }),
    explain: (query) => {
      asked.push(query);
      if (query.name === 'missing') throw new FakeExplainError('not-cached', `cannot explain the routing of ${query.name}: not cached`);
      if (query.name === 'unsupported') throw new FakeExplainError('unsupported', 'no explain()');
      return { object: { name: query.name }, routes: [], misses: [] };
    },
  };

  async function start(statusPage?: StatusPageSource): Promise<string> {
    server = await MetricsServer.start({ registry: new Registry(), ...(statusPage === undefined ? {} : { statusPage }) });
    return server.url;
  }

  it('is off unless given: its paths answer 404 saying it is opt-in, the other endpoints still serve', async () => {
    const url = await start();
    for (const path of ['/statusz', '/statusz/', '/statusz/status.json', '/statusz/explain?gvr=/v1/configmaps&name=a']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('the status page is off; it is opt-in');
    }
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
  });

  it('serves the page with a policy that allows exactly its own inline style and script, and nothing external', async () => {
    const url = await start(source);
    for (const path of ['/statusz', '/statusz/']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      const policy = res.headers.get('content-security-policy') ?? '';
      const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
      expect(script.length).toBeGreaterThan(1000);
      expect(policy.split('; ')).toEqual(
        expect.arrayContaining([
          "default-src 'none'",
          `script-src 'sha256-${sha256(script)}'`,
          `style-src 'sha256-${sha256(style)}'`,
          "connect-src 'self'",
          "frame-ancestors 'none'",
        ]),
      );
      expect(policy).not.toContain('unsafe');
      // Self-contained: no stylesheet, script, image or font from anywhere.
      expect(html).not.toMatch(/<link|<img|<iframe|\ssrc=|@import|url\(/);
      // Data is only ever set as text: nothing in the script parses strings as HTML.
      expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    }
  });

  it('has a Permissions section the script fills from status.permissions as text, saying how to turn it on when absent', async () => {
    const url = await start(source);
    const html = await (await fetch(`${url}/statusz`)).text();
    const table = /<table id="permissions">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
    expect([...table.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1])).toEqual(['resource', 'verb', 'where', 'latest answer']);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const render = /function renderPermissions\(\) \{([\s\S]*?)\n {8}\}/.exec(script)?.[1] ?? '';
    // Rows and refusals come from status.permissions; every string goes through el() (text nodes).
    expect(render).toContain('status.permissions');
    expect(render).toContain("fill('permissions', rows, 4");
    expect(render).toContain('instrumentContainer(container, { connectionPool }) turns it on');
    expect(render).not.toMatch(/innerHTML|insertAdjacentHTML/);
    expect(script).toMatch(/renderInformers\(\);\s+renderPermissions\(\);/);
  });

  it('has a Recent passes section the script draws from status.recentPasses as text and SVG, saying how to turn tracing on', async () => {
    const url = await start(source);
    const html = await (await fetch(`${url}/statusz`)).text();
    expect(html).toMatch(/<h2>Recent passes<\/h2>\s*<p id="passes-summary" class="muted"><\/p>\s*<div id="passes"><\/div>/);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const render = /function renderPasses\(\) \{([\s\S]*?)\n {8}\}/.exec(script)?.[1] ?? '';
    const waterfall = /function passWaterfall\(p\) \{([\s\S]*?)\n {8}\}/.exec(script)?.[1] ?? '';
    expect(render).toContain('status.recentPasses');
    expect(render).toContain('No OpenTelemetry SDK is registered');
    expect(script).toContain('add a RecentPassesRecorder to your OpenTelemetry tracer provider');
    // Each pass: one bar for the pass and one per child span, offset from the pass's start, and its triggers as list items.
    expect(waterfall).toMatch(/svg\('rect', \{\s+class: 'bar'/);
    expect(waterfall).toContain('r.offsetMs');
    expect(waterfall).toContain('describeTrigger(t)');
    for (const body of [render, waterfall]) expect(body).not.toMatch(/innerHTML|insertAdjacentHTML|textContent =.*\+.*</);
    expect(script).toMatch(/renderQueue\(\);\s+renderPasses\(\);/);
  });

  it('serves the source status as JSON', async () => {
    const url = await start(source);
    const res = await fetch(`${url}/statusz/status.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(await res.json()).toEqual(source.status());
  });

  it('parses the explain query: labels given, given as none, or left to the cache', async () => {
    const url = await start(source);
    const ask = (q: string): Promise<Response> => fetch(`${url}/statusz/explain?${q}`);
    expect((await ask('gvr=%2Fv1%2Fconfigmaps&namespace=team-a&name=shop-extra&labels=app%3Dshop,tier%3Dweb')).status).toBe(200);
    expect((await ask('gvr=/v1/configmaps&namespace=team-a&name=a&labels=')).status).toBe(200);
    expect((await ask('gvr=demo.protean.dev/v1alpha1/webapps&namespace=team-a&name=shop')).status).toBe(200);
    expect((await ask('gvr=/v1/namespaces&name=team-a')).status).toBe(200);
    const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
    expect(asked).toEqual([
      { gvr: configmaps, namespace: 'team-a', name: 'shop-extra', labels: { app: 'shop', tier: 'web' } },
      { gvr: configmaps, namespace: 'team-a', name: 'a', labels: {} },
      { gvr: { group: 'demo.protean.dev', version: 'v1alpha1', resource: 'webapps' }, namespace: 'team-a', name: 'shop' },
      { gvr: { group: '', version: 'v1', resource: 'namespaces' }, namespace: '', name: 'team-a' },
    ]);
  });

  it.each([
    ['name=a', 'parameter gvr is required'],
    ['gvr=configmaps&name=a', 'parameter gvr "configmaps" is not a GVR'],
    [
      'gvr=v1/configmaps&name=a',
      'parameter gvr "v1/configmaps" is not a GVR: invalid GVR key "v1/configmaps": expected "group/version/resource", e.g. "apps/v1/deployments", or "/v1/configmaps" for the core group (group \'\'); for the core group write "/v1/configmaps"',
    ],
    ['gvr=/v1/Config_Maps&name=a', 'parameter gvr "/v1/Config_Maps" is not a GVR'],
    ['gvr=/v1/configmaps', 'parameter name is required'],
    ['gvr=/v1/configmaps&name=a&namespace=Team_A', 'parameter namespace'],
    ['gvr=/v1/configmaps&name=a&name=b', 'parameter name is given 2 times'],
    ['gvr=/v1/configmaps&name=a&labels=app', 'parameter labels: "app" is not key=value'],
    ['gvr=/v1/configmaps&name=a&labels=app%3D%3Cb%3E', 'parameter labels: value "<b>" of app'],
    ['gvr=/v1/configmaps&name=a&labels=-x%3D1', 'parameter labels: key "-x"'],
    ['gvr=/v1/configmaps&name=a&labels=a%3D1,a%3D2', 'parameter labels: key "a" is given twice'],
  ])('answers 400 naming the parameter for %s', async (query, message) => {
    const url = await start(source);
    const res = await fetch(`${url}/statusz/explain?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await res.json()) as { error: string }).error).toContain(message);
    expect(asked).toEqual([]);
  });

  it('answers 404 for an object the cache does not hold and 501 when routing cannot be explained, with the message', async () => {
    const url = await start(source);
    const missing = await fetch(`${url}/statusz/explain?gvr=/v1/configmaps&namespace=ns&name=missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'cannot explain the routing of missing: not cached' });
    const unsupported = await fetch(`${url}/statusz/explain?gvr=/v1/configmaps&namespace=ns&name=unsupported`);
    expect(unsupported.status).toBe(501);
  });

  it('is read-only: other methods answer 405', async () => {
    const url = await start(source);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      expect((await fetch(`${url}/statusz/explain?gvr=/v1/configmaps&name=a`, { method })).status).toBe(405);
    }
    expect(asked).toEqual([]);
  });

  it('refuses a JSON status name that collides with the status page', async () => {
    await expect(
      MetricsServer.start({ registry: new Registry(), statusPage: source, status: { explain: () => ({}), ok: () => ({}) } }),
    ).rejects.toThrow('MetricsServer: status page name(s) "explain" collide with the status page');
  });
});
