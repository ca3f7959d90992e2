import { describe, expect, it } from '@jest/globals';
import { Nothing, parseSelector } from './deps.testkit.js';
import { app1, app2, configmaps, deployments, webapps } from './fixtures.testkit.js';
import { newHarness } from './harness.testkit.js';

const WEBAPPS = 'demo.protean.dev/v1/webapps';

async function coordinatorWith(selectors: Record<string, string>) {
  const h = newHarness();
  let i = 0;
  for (const [name, selector] of Object.entries(selectors)) {
    const w = h.coordinator.forInstance(webapps, { namespace: 'shop', name });
    await w.watch({ nodeId: `n${i++}`, gvr: configmaps, namespace: 'shop', selector: parseSelector(selector) });
    w.done(true);
  }
  return h;
}

describe('IndexedWatchCoordinator.explain', () => {
  it('routes a scalar watch by namespace and name, and says which of the two a miss fails', async () => {
    const { coordinator } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'config', gvr: configmaps, namespace: 'default', name: 'app1-env' });
    w.done(true);
    const watch = { kind: 'scalar', nodeId: 'config', gvr: '/v1/configmaps', namespace: 'default', name: 'app1-env', committed: true };

    expect(coordinator.explain({ gvr: configmaps, namespace: 'default', name: 'app1-env', labels: {} })).toEqual({
      routes: [{ parent: WEBAPPS, instance: 'default/app1', watch }],
      misses: [],
    });
    expect(coordinator.explain({ gvr: configmaps, namespace: 'default', name: 'other', labels: {} }).misses).toEqual([
      {
        parent: WEBAPPS,
        instance: 'default/app1',
        watch,
        field: 'name',
        reason: 'the object is named "other", the watch is of "app1-env"',
      },
    ]);
    expect(coordinator.explain({ gvr: configmaps, namespace: 'prod', name: 'app1-env', labels: {} }).misses).toEqual([
      {
        parent: WEBAPPS,
        instance: 'default/app1',
        watch,
        field: 'namespace',
        reason: 'the object is in namespace "prod", the watch is of "default/app1-env"',
      },
    ]);
    expect(coordinator.explain({ gvr: configmaps, namespace: '', name: 'app1-env', labels: {} }).misses[0]?.reason).toBe(
      'the object is cluster-scoped, the watch is of "default/app1-env"',
    );
  });

  it('misses a collection watch of another namespace on the namespace, before looking at the selector', async () => {
    const { coordinator } = await coordinatorWith({ shop: 'app=shop' });
    const { routes, misses } = coordinator.explain({ gvr: configmaps, namespace: 'blog', name: 'x', labels: { app: 'shop' } });
    expect(routes).toEqual([]);
    expect(misses).toEqual([
      {
        parent: WEBAPPS,
        instance: 'shop/shop',
        watch: { kind: 'collection', nodeId: 'n0', gvr: '/v1/configmaps', namespace: 'shop', selector: 'app=shop', committed: true },
        field: 'namespace',
        reason: 'the object is in namespace "blog", the watch is limited to namespace "shop"',
      },
    ]);
    expect(coordinator.explain({ gvr: configmaps, namespace: '', name: 'x', labels: { app: 'shop' } }).misses[0]?.reason).toBe(
      'the object is cluster-scoped, the watch is limited to namespace "shop"',
    );
  });

  it.each([
    ['app=shop', { app: 'blog' }, 'label app is "blog", selector wants app=shop'],
    ['app!=blog', { app: 'blog' }, 'label app is "blog", selector wants app!=blog'],
    ['app in (shop,web)', { app: 'blog' }, 'label app is "blog", selector wants app in (shop,web)'],
    ['app notin (blog,wiki)', { app: 'wiki' }, 'label app is "wiki", selector wants app notin (blog,wiki)'],
    ['tier', { app: 'shop' }, 'label tier is missing, selector wants tier (label present)'],
    ['!legacy', { legacy: 'true' }, 'label legacy is "true", selector wants !legacy (label absent)'],
  ])('misses the selector %s on labels %j with the failing requirement', async (selector, labels, reason) => {
    const { coordinator, enqueued } = await coordinatorWith({ shop: selector });
    const answer = coordinator.explain({ gvr: configmaps, namespace: 'shop', name: 'x', labels });
    expect(answer.routes).toEqual([]);
    expect(answer.misses.map((m) => [m.instance, m.field, m.reason])).toEqual([['shop/shop', 'selector', reason]]);
    // And routing agrees: the event reaches no one.
    coordinator.routeEvent({ type: 'add', gvr: configmaps, namespace: 'shop', name: 'x', labels });
    expect(enqueued.take()).toEqual([]);
  });

  it('lists every watch of the GVR once, as a route or a miss, and none of other GVRs', async () => {
    const { coordinator } = await coordinatorWith({ a: 'app=shop', b: 'app in (shop,blog)', c: 'app=blog', d: '!app' });
    const other = coordinator.forInstance(webapps, app2);
    await other.watch({ nodeId: 'deploy', gvr: deployments, namespace: 'shop', selector: parseSelector('app=shop') });
    other.done(true);
    const answer = coordinator.explain({ gvr: configmaps, namespace: 'shop', name: 'x', labels: { app: 'shop' } });
    expect(answer.routes.map((r) => r.instance)).toEqual(['shop/a', 'shop/b']);
    expect(answer.misses.map((m) => m.instance)).toEqual(['shop/c', 'shop/d']);
  });

  it('routes through a watch of the pass in progress, marked not committed, as routeEvent does', async () => {
    const { coordinator, enqueued } = await coordinatorWith({ shop: 'app=shop' });
    const w = coordinator.forInstance(webapps, { namespace: 'shop', name: 'shop' });
    // Re-targeted in a pass still running: both selectors route until done().
    await w.watch({ nodeId: 'n0', gvr: configmaps, namespace: 'shop', selector: parseSelector('app=web') });
    const routes = coordinator.explain({ gvr: configmaps, namespace: 'shop', name: 'x', labels: { app: 'web' } }).routes;
    expect(routes.map((r) => r.watch)).toEqual([
      { kind: 'collection', nodeId: 'n0', gvr: '/v1/configmaps', namespace: 'shop', selector: 'app=web', committed: false },
    ]);
    coordinator.routeEvent({ type: 'add', gvr: configmaps, namespace: 'shop', name: 'x', labels: { app: 'web' } });
    expect(enqueued.take()).toEqual([`${WEBAPPS} shop/shop`]);
    expect(coordinator.declaredWatches()).toEqual([
      {
        parent: WEBAPPS,
        namespace: 'shop',
        name: 'shop',
        watches: [
          { kind: 'collection', nodeId: 'n0', gvr: '/v1/configmaps', namespace: 'shop', selector: 'app=shop', committed: true },
          { kind: 'collection', nodeId: 'n0', gvr: '/v1/configmaps', namespace: 'shop', selector: 'app=web', committed: false },
        ],
      },
    ]);
    w.done(true);
    expect(coordinator.declaredWatches()[0]?.watches).toEqual([
      { kind: 'collection', nodeId: 'n0', gvr: '/v1/configmaps', namespace: 'shop', selector: 'app=web', committed: true },
    ]);
  });

  it('answers nothing for a GVR nobody watches, and lists no instance whose watches are gone', async () => {
    const { coordinator } = await coordinatorWith({ shop: 'app=shop' });
    expect(coordinator.explain({ gvr: deployments, namespace: 'shop', name: 'x', labels: { app: 'shop' } })).toEqual({
      routes: [],
      misses: [],
    });
    coordinator.removeInstance(webapps, { namespace: 'shop', name: 'shop' });
    expect(coordinator.declaredWatches()).toEqual([]);
    expect(coordinator.explain({ gvr: configmaps, namespace: 'shop', name: 'x', labels: { app: 'shop' } })).toEqual({
      routes: [],
      misses: [],
    });
  });

  it('shows an all-namespaces watch without a namespace, and a null selector as <nothing>', async () => {
    const { coordinator } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'all', gvr: configmaps, selector: parseSelector('') });
    await w.watch({ nodeId: 'none', gvr: configmaps, namespace: 'default', selector: Nothing });
    w.done(true);
    const answer = coordinator.explain({ gvr: configmaps, namespace: 'default', name: 'x', labels: {} });
    expect(answer.routes.map((r) => r.watch)).toEqual([
      { kind: 'collection', nodeId: 'all', gvr: '/v1/configmaps', selector: '', committed: true },
    ]);
    expect(answer.misses.map((m) => [m.watch.kind === 'collection' && m.watch.selector, m.reason])).toEqual([
      ['<nothing>', 'selector matches nothing (a null label selector)'],
    ]);
  });
});
