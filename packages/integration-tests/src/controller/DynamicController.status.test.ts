import { afterEach, describe, expect, it } from '@jest/globals';
import { ExplainError, parseSelector, type GroupVersionResource, type Handler } from '@protean/core';
import { createTestController, Deferred, FakeClock, routesOf, type TestController } from '@protean/testing';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const secrets: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
const WEBAPPS = 'demo.protean.dev/v1/webapps';

/** Watches the ConfigMap `<name>-env` and every ConfigMap labelled app=<name> in its namespace. */
const watching: Handler = async (req, ctx) => {
  await ctx.watcher.watch({ nodeId: 'env', gvr: configmaps, namespace: req.namespace, name: `${req.name}-env` });
  await ctx.watcher.watch({ nodeId: 'labelled', gvr: configmaps, namespace: req.namespace, selector: parseSelector(`app=${req.name}`) });
};

/** A client-node style API error whose response body holds an object's content, which must never reach the status. */
function conflict(): Error {
  return Object.assign(new Error('HTTP-Code: 409\nMessage: Operation failed\nBody: {"data":{"password":"hunter2"}}'), {
    code: 409,
    body: { kind: 'Status', reason: 'Conflict', message: 'Operation cannot be fulfilled: the object has been modified' },
  });
}

describe('DynamicController.status', () => {
  let t: TestController;
  afterEach(async () => {
    await t.dispose();
  });

  it('lists parents, informers with counts, owners and watchers, and instances with their declared watches, as plain data', async () => {
    t = createTestController({ logFailures: false });
    t.source.add(webapps, { name: 'shop', namespace: 'default', labels: { team: 'a' } });
    t.source.add(webapps, { name: 'idle', namespace: 'default' });
    t.source.add(configmaps, { name: 'shop-env', namespace: 'default', labels: { app: 'shop' }, annotations: { secret: 'x' } });
    await t.start();
    await t.register(webapps, async (req, ctx) => {
      if (req.name === 'shop') await watching(req, ctx);
    });
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 1 && t.queue.len() === 0);

    const status = t.controller.status();
    expect(JSON.parse(JSON.stringify(status))).toEqual(status);
    expect(status.started).toBe(true);
    expect(status.leading).toBe(true);
    expect(Number.isNaN(Date.parse(status.generatedAt))).toBe(false);
    expect(status.parents).toEqual([{ gvr: WEBAPPS, synced: true, instances: 2 }]);
    expect(status.informers.map(({ health: _health, ...rest }) => rest)).toEqual([
      { gvr: WEBAPPS, objects: 2, owners: [`parent:${WEBAPPS}`], watchers: [], synced: true },
      { gvr: '/v1/configmaps', objects: 1, owners: ['coordinator'], watchers: [`${WEBAPPS} default/shop`], synced: true },
    ]);
    expect(status.informers[1]?.health?.synced).toBe(true);
    expect(status.instances).toEqual([
      { parent: WEBAPPS, namespace: 'default', name: 'idle', watches: [] },
      {
        parent: WEBAPPS,
        namespace: 'default',
        name: 'shop',
        watches: [
          { kind: 'scalar', nodeId: 'env', gvr: '/v1/configmaps', namespace: 'default', name: 'shop-env', committed: true },
          { kind: 'collection', nodeId: 'labelled', gvr: '/v1/configmaps', namespace: 'default', selector: 'app=shop', committed: true },
        ],
      },
    ]);
    expect(status.queue).toEqual({ depth: 0, workers: 1, reconcileTimeoutMs: 300_000, inFlight: [], recentFailures: [] });
    // Metadata only: neither labels nor annotations of any object are in the snapshot.
    expect(JSON.stringify(status)).not.toContain('secret');
    expect(JSON.stringify(status)).not.toContain('team');
  });

  it('shows passes in flight with their age on the controller clock, oldest first', async () => {
    const clock = new FakeClock(1_000);
    t = createTestController({ logFailures: false, clock, config: { workers: 2 } });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    const release = new Deferred();
    await t.start();
    await t.register(webapps, async (_req, ctx) => {
      // Held until released, or aborted at shutdown if the test fails first.
      await Promise.race([release.promise, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
    });
    await t.waitFor(() => t.controller.queueStatus().inFlight.length === 1);
    const first = t.controller.status().generatedAt;
    clock.advance(4_000);
    t.source.add(webapps, { name: 'b', namespace: 'ns' });
    await t.waitFor(() => t.controller.queueStatus().inFlight.length === 2);
    clock.advance(1_500);

    const queue = t.controller.queueStatus();
    expect(queue.inFlight.map(({ name, ageMs }) => [name, ageMs])).toEqual([
      ['a', 5_500],
      ['b', 1_500],
    ]);
    // ISO times follow the controller's clock.
    expect(Date.parse(queue.inFlight[0]!.startedAt)).toBe(Date.parse(first));
    expect(Date.parse(queue.inFlight[1]!.startedAt) - Date.parse(first)).toBe(4_000);
    expect(Date.parse(t.controller.status().generatedAt) - Date.parse(first)).toBe(5_500);
    release.resolve();
    await t.waitFor(() => t.controller.queueStatus().inFlight.length === 0);
  });

  it('keeps the last failure of each failing item, with its summarised cause, count and next retry, until a pass succeeds', async () => {
    const clock = new FakeClock();
    t = createTestController({ logFailures: false, clock, config: { minRetryDelayMs: 100, maxRetryDelayMs: 10_000 } });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    let failing = true;
    await t.start();
    await t.register(webapps, async () => {
      if (failing) throw conflict();
    });
    await t.waitFor(() => t.controller.queueStatus().recentFailures.length === 1);
    const first = t.controller.queueStatus().recentFailures[0]!;
    expect(first).toMatchObject({ parent: WEBAPPS, namespace: 'ns', name: 'a', reason: 'Conflict', failures: 1, dropped: false });
    expect(first.error).toBe('409 Conflict: Operation cannot be fulfilled: the object has been modified');
    expect(JSON.stringify(t.controller.status())).not.toContain('hunter2');
    expect(Date.parse(first.nextRetryAt!) - Date.parse(first.at)).toBe(100);

    await clock.advanceAsync(100);
    await t.waitFor(() => t.controller.queueStatus().recentFailures[0]?.failures === 2);
    const second = t.controller.queueStatus().recentFailures;
    expect(second).toHaveLength(1);
    expect(Date.parse(second[0]!.nextRetryAt!) - Date.parse(second[0]!.at)).toBe(200);

    failing = false;
    await clock.advanceAsync(200);
    await t.waitFor(() => t.controller.queueStatus().recentFailures.length === 0);
  });
});

describe('DynamicController.explain and routesOf', () => {
  let t: TestController;
  afterEach(async () => {
    await t.dispose();
  });

  async function running(): Promise<void> {
    t = createTestController({ logFailures: false });
    t.source.add(webapps, { name: 'shop', namespace: 'default' });
    t.source.add(webapps, { name: 'blog', namespace: 'default' });
    t.source.add(configmaps, { name: 'cm', namespace: 'default', labels: { app: 'blog' } });
    await t.start();
    await t.register(webapps, watching);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 2 && t.queue.len() === 0);
  }

  it('reads the labels from the cache when none are given, and explains each watch it misses', async () => {
    await running();
    const answer = t.controller.explain({ gvr: configmaps, namespace: 'default', name: 'cm' });
    expect(answer.object).toEqual({ gvr: '/v1/configmaps', namespace: 'default', name: 'cm', labels: { app: 'blog' }, source: 'cache' });
    expect(answer.routes.map((r) => [r.instance, r.watch.kind])).toEqual([['default/blog', 'collection']]);
    expect(answer.misses.map((m) => [m.instance, m.field, m.reason])).toEqual([
      ['default/blog', 'name', 'the object is named "cm", the watch is of "blog-env"'],
      ['default/shop', 'name', 'the object is named "cm", the watch is of "shop-env"'],
      ['default/shop', 'selector', 'label app is "blog", selector wants app=shop'],
    ]);
    expect(routesOf(t.controller, { gvr: configmaps, namespace: 'default', name: 'cm' })).toEqual(['default/blog']);
  });

  it('agrees with routing: a ConfigMap relabelled to app=shop routes to shop, and shop is reconciled', async () => {
    await running();
    const relabelled = { gvr: configmaps, metadata: { namespace: 'default', name: 'cm', labels: { app: 'shop' } } };
    expect(routesOf(t.controller, relabelled)).toEqual(['default/shop']);
    const reconciled: string[] = [];
    await t.register(webapps, async (req, ctx) => {
      reconciled.push(req.name);
      await watching(req, ctx);
    });
    await t.waitFor(() => reconciled.length === 2 && t.queue.len() === 0);
    reconciled.length = 0;
    t.source.update(configmaps, { name: 'cm', namespace: 'default', labels: { app: 'shop' } });
    // The update routes on old and new labels: blog (leaving) and shop (joining).
    await t.waitFor(() => reconciled.length === 2);
    expect(reconciled.sort()).toEqual(['blog', 'shop']);
    expect(routesOf(t.controller, { gvr: configmaps, namespace: 'default', name: 'cm' })).toEqual(['default/shop']);
  });

  it('counts the parent route: a parent object routes to its own instance', async () => {
    await running();
    const answer = t.controller.explain({ gvr: webapps, namespace: 'default', name: 'shop' });
    expect(answer.routes).toEqual([
      { parent: WEBAPPS, instance: 'default/shop', watch: { kind: 'parent', gvr: WEBAPPS, namespace: 'default', name: 'shop' } },
    ]);
    expect(answer.misses).toEqual([]);
    expect(routesOf(t.controller, { gvr: webapps, namespace: 'default', name: 'shop', labels: {} })).toEqual(['default/shop']);
  });

  it('names the object when its labels cannot be read, and refuses a bad name', async () => {
    await running();
    expect(() => t.controller.explain({ gvr: secrets, namespace: 'default', name: 's' })).toThrow(
      new ExplainError(
        'no-informer',
        '/v1/secrets default/s',
        'no informer runs for /v1/secrets, so its labels cannot be read; pass labels',
      ),
    );
    expect(() => t.controller.explain({ gvr: configmaps, namespace: 'default', name: 'nope' })).toThrow(
      "cannot explain the routing of /v1/configmaps default/nope: it is not in the /v1/configmaps informer's cache; pass labels",
    );
    expect(() => t.controller.explain({ gvr: configmaps, namespace: 'default', name: 'a/b', labels: {} })).toThrow(/invalid name "a\/b"/);
    const badKey = (): unknown => t.controller.explain({ gvr: configmaps, namespace: 'default', name: 'x', labels: { 'bad key': 'v' } });
    expect(badKey).toThrow(ExplainError);
    expect(badKey).toThrow(/^cannot explain the routing of \/v1\/configmaps default\/x: label key "bad key" is invalid/);
    expect(() => routesOf(t.controller, { gvr: configmaps, namespace: 'default', name: 'x', labels: { app: 'two\nlines' } })).toThrow(
      /cannot explain the routing of \/v1\/configmaps default\/x: label "app" has an invalid value "two\\nlines"/,
    );
    // With labels given, no informer is needed.
    expect(routesOf(t.controller, { gvr: secrets, namespace: 'default', name: 's', labels: {} })).toEqual([]);
  });
});
