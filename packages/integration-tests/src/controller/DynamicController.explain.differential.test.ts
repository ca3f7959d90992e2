import { afterEach, describe, expect, it } from '@jest/globals';
import { parseSelector, type GroupVersionResource, type WatchRequest } from '@protean/core';
import { createTestController, Random, routesOf, type TestController } from '@protean/testing';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const NAMESPACES = ['ns1', 'ns2'];
const NAMES = ['c0', 'c1', 'c2', 'c3'];
const KEYS = ['app', 'tier'];
const VALUES = ['a', 'b', 'c'];

function randomSelector(r: Random): string {
  const key = r.pick(KEYS);
  const v = (): string => r.pick(VALUES);
  return r.pick([`${key}=${v()}`, `${key}!=${v()}`, `${key} in (${v()},${v()})`, `${key} notin (${v()})`, key, `!${key}`]);
}

/** What one instance declares on every pass: fixed per instance, so routing stays the same across its reconciles. */
function randomWatches(r: Random): WatchRequest[] {
  const out: WatchRequest[] = [];
  if (r.chance(0.5)) out.push({ nodeId: 'one', gvr: configmaps, namespace: r.pick(NAMESPACES), name: r.pick(NAMES) });
  if (r.chance(0.8)) {
    const namespace = r.chance(0.3) ? undefined : r.pick(NAMESPACES);
    out.push({
      nodeId: 'many',
      gvr: configmaps,
      ...(namespace === undefined ? {} : { namespace }),
      selector: parseSelector(randomSelector(r)),
    });
  }
  return out;
}

function randomLabels(r: Random): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const key of KEYS) if (r.chance(0.6)) labels[key] = r.pick(VALUES);
  return labels;
}

describe('DynamicController.explain against what the controller reconciles', () => {
  let t: TestController;
  afterEach(async () => {
    await t.dispose();
  });

  it.each([1, 2, 3])(
    'reconciles exactly the instances routesOf predicts for each ConfigMap add, update and delete (seed %i)',
    async (seed) => {
      const r = new Random(seed);
      // One worker: the queue is FIFO, so the barrier below runs after every item an event enqueued.
      t = createTestController({ config: { workers: 1 } });
      const declared = new Map<string, WatchRequest[]>();
      for (let i = 0; i < 12; i++) {
        const namespace = r.pick(NAMESPACES);
        declared.set(`${namespace}/app${i}`, randomWatches(r));
        t.source.add(webapps, { namespace, name: `app${i}` });
      }
      // One all-namespaces watch keeps the ConfigMap informer running whatever the others declare.
      declared.set('ns1/keeper', [{ nodeId: 'all', gvr: configmaps, selector: parseSelector('keeper') }]);
      t.source.add(webapps, { namespace: 'ns1', name: 'keeper' });
      const reconciled = new Set<string>();
      let barriers = 0;
      await t.start();
      await t.register(webapps, async (req, ctx) => {
        if (req.name === 'keeper') barriers++;
        else reconciled.add(`${req.namespace}/${req.name}`);
        for (const w of declared.get(`${req.namespace}/${req.name}`) ?? []) await ctx.watcher.watch(w);
      });
      // No ConfigMap carries the key `keeper`, so only its own parent events reconcile it: a generation bump is a
      // barrier that passes once the items enqueued before it are done.
      let generation = 1;
      const barrier = async (): Promise<void> => {
        const seen = barriers;
        t.source.update(webapps, { namespace: 'ns1', name: 'keeper', generation: ++generation });
        await t.waitFor(() => barriers > seen);
      };
      await t.waitFor(() => reconciled.size === declared.size - 1 && barriers === 1);
      await barrier();

      const cluster = new Map<string, Record<string, string>>();
      let routed = 0;
      for (let step = 0; step < 150; step++) {
        const namespace = r.pick(NAMESPACES);
        const name = r.pick(NAMES);
        const key = `${namespace}/${name}`;
        const old = cluster.get(key);
        const labels = randomLabels(r);
        const predict = (l: Record<string, string>): string[] => routesOf(t.controller, { gvr: configmaps, namespace, name, labels: l });
        let expected: Set<string>;
        reconciled.clear();
        if (old === undefined) {
          expected = new Set(predict(labels));
          t.source.add(configmaps, { namespace, name, labels });
          cluster.set(key, labels);
        } else if (r.chance(0.25)) {
          expected = new Set(predict(old));
          t.source.delete(configmaps, { namespace, name });
          cluster.delete(key);
        } else {
          expected = new Set([...predict(labels), ...predict(old)]);
          t.source.update(configmaps, { namespace, name, labels });
          cluster.set(key, labels);
        }
        await barrier();
        expect([...reconciled].sort()).toEqual([...expected].sort());
        routed += expected.size;
      }
      // Worth something only if events do reach instances, and not all of them.
      expect(routed).toBeGreaterThan(100);
      expect(routed).toBeLessThan(150 * (declared.size - 1));
    },
  );
});
