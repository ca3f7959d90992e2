import { afterEach, describe, expect, it } from '@jest/globals';
import { parseSelector, type GroupVersionResource, type Handler } from '@protean/core';
import { createTestController, type TestController } from '@protean/testing';
import { instrumentContainer, type ProteanMetrics } from '../instrumentContainer.js';
import type { MetricsServer } from '../MetricsServer.js';
import type { StatusPageStatus } from './controllerStatusPage.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const WEBAPPS = 'demo.protean.dev/v1/webapps';

describe('instrumentContainer({ statusPage: true }): the status page over a DynamicController', () => {
  let t: TestController;
  let metrics: ProteanMetrics;
  let server: MetricsServer | undefined;

  afterEach(async () => {
    await t.dispose();
    await server?.stop();
    server = undefined;
  });

  function compose(statusPage: boolean | undefined): void {
    t = createTestController({
      logFailures: false,
      // Failing passes are retried (with backoff) for the whole test, never dropped.
      config: { queueMaxRetries: 1_000 },
      configure: (container) => {
        metrics = instrumentContainer(container, { processMetrics: false, ...(statusPage === undefined ? {} : { statusPage }) });
      },
    });
  }

  /** Instances of webapps watch `<name>-config` and the ConfigMaps labelled app=<name>; `broken` fails every pass. */
  const handler: Handler = async (req, ctx) => {
    await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
    await ctx.watcher.watch({ nodeId: 'labelled', gvr: configmaps, namespace: req.namespace, selector: parseSelector(`app=${req.name}`) });
    if (req.name === 'broken') throw new Error('backend unavailable');
  };

  it('is off by default: /statusz answers 404, /statusz/informers still serves', async () => {
    compose(undefined);
    server = await metrics.serve();
    expect((await fetch(`${server.url}/statusz`)).status).toBe(404);
    expect((await fetch(`${server.url}/statusz/status.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/statusz/informers`)).status).toBe(200);
  });

  it("serves the controller's parents, informers with their assessed health, instances with their watches, and the queue's failures", async () => {
    compose(true);
    t.source.add(webapps, { name: 'shop', namespace: 'ns' });
    t.source.add(webapps, { name: 'broken', namespace: 'ns' });
    t.source.add(configmaps, { name: 'extra', namespace: 'ns', labels: { app: 'shop' } });
    await t.start();
    await t.register(webapps, handler);
    server = await metrics.serve();
    let status: StatusPageStatus | undefined;
    await t.waitFor(async () => {
      status = (await (await fetch(`${server!.url}/statusz/status.json`)).json()) as StatusPageStatus;
      return status.instances.find((i) => i.name === 'shop')?.watches.length === 2 && status.queue.recentFailures.length === 1;
    });
    expect(status?.parents).toEqual([{ gvr: WEBAPPS, synced: true, instances: 2 }]);
    expect(status?.informers.map((i) => [i.gvr, i.objects, i.state])).toEqual([
      [WEBAPPS, 2, 'healthy'],
      ['/v1/configmaps', 1, 'healthy'],
    ]);
    expect(status?.instances.map((i) => `${i.namespace}/${i.name}`)).toEqual(['ns/broken', 'ns/shop']);
    expect(status?.instances[1]?.watches).toEqual([
      { kind: 'scalar', nodeId: 'config', gvr: '/v1/configmaps', namespace: 'ns', name: 'shop-config', committed: true },
      { kind: 'collection', nodeId: 'labelled', gvr: '/v1/configmaps', namespace: 'ns', selector: 'app=shop', committed: true },
    ]);
    const failure = status?.queue.recentFailures[0];
    expect(failure).toMatchObject({ parent: WEBAPPS, namespace: 'ns', name: 'broken', reason: 'Error', dropped: false });
    // The failure says when the item is tried again.
    expect(Date.parse(failure?.nextRetryAt ?? '')).toBeGreaterThanOrEqual(Date.parse(failure?.at ?? ''));
    expect(failure?.error).toContain('backend unavailable');
    expect(failure?.failures).toBeGreaterThanOrEqual(1);
  });

  it('explains an object read from the cache and one given with its labels: the routes, and each miss with its field and reason', async () => {
    compose(true);
    t.source.add(webapps, { name: 'shop', namespace: 'ns' });
    t.source.add(webapps, { name: 'blog', namespace: 'ns' });
    t.source.add(configmaps, { name: 'extra', namespace: 'ns', labels: { app: 'shop' } });
    await t.start();
    await t.register(webapps, handler);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 2 && t.queue.len() === 0);
    server = await metrics.serve();
    const explain = async (query: string): Promise<[number, Record<string, unknown>]> => {
      const res = await fetch(`${server!.url}/statusz/explain?${query}`);
      return [res.status, (await res.json()) as Record<string, unknown>];
    };

    const [status, cached] = await explain('gvr=/v1/configmaps&namespace=ns&name=extra');
    expect(status).toBe(200);
    expect(cached['object']).toEqual({ gvr: '/v1/configmaps', namespace: 'ns', name: 'extra', labels: { app: 'shop' }, source: 'cache' });
    expect(cached['routes']).toEqual([
      {
        parent: WEBAPPS,
        instance: 'ns/shop',
        watch: { kind: 'collection', nodeId: 'labelled', gvr: '/v1/configmaps', namespace: 'ns', selector: 'app=shop', committed: true },
      },
    ]);
    const misses = cached['misses'] as { instance: string; watch: { nodeId: string }; field: string; reason: string }[];
    expect(misses.map((m) => [m.instance, m.watch.nodeId, m.field])).toEqual([
      ['ns/blog', 'config', 'name'],
      ['ns/blog', 'labelled', 'selector'],
      ['ns/shop', 'config', 'name'],
    ]);
    expect(misses[1]?.reason).toMatch(/app.*shop.*blog/);

    const [, given] = await explain('gvr=/v1/configmaps&namespace=ns&name=extra&labels=app%3Dblog');
    expect((given['routes'] as { instance: string }[]).map((r) => r.instance)).toEqual(['ns/blog']);
    const [, parent] = await explain(`gvr=${WEBAPPS}&namespace=ns&name=shop`);
    expect(parent['routes']).toEqual([
      { parent: WEBAPPS, instance: 'ns/shop', watch: { kind: 'parent', gvr: WEBAPPS, namespace: 'ns', name: 'shop' } },
    ]);

    expect(await explain('gvr=/v1/configmaps&namespace=ns&name=nope')).toEqual([
      404,
      { error: "cannot explain the routing of /v1/configmaps ns/nope: it is not in the /v1/configmaps informer's cache; pass labels" },
    ]);
    const [unwatched, body] = await explain('gvr=/v1/secrets&namespace=ns&name=s');
    expect(unwatched).toBe(404);
    expect(body['error']).toContain('no informer runs for /v1/secrets');
  });
});
