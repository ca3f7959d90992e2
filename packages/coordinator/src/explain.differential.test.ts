import { describe, expect, it } from '@jest/globals';
import { gvrKey, type GroupVersionResource, type WatchEvent, type WatchRequest, type RouteQuery } from '@protean/core';
import { Random } from '@protean/core/testing';
import type { IndexedWatchCoordinator } from './IndexedWatchCoordinator.js';
import { Everything, Nothing, parseSelector } from './deps.testkit.js';
import { configmaps, deployments, webapps, databases } from './fixtures.testkit.js';
import { newHarness } from './harness.testkit.js';

const KEYS = ['app', 'tier', 'env'];
const VALUES = ['a', 'b', 'c'];
const NAMESPACES = ['', 'ns1', 'ns2'];
const GVRS: GroupVersionResource[] = [configmaps, deployments];
const NAMES = ['o0', 'o1', 'o2'];
const PARENTS = [webapps, databases];

function randomRequirement(r: Random): string {
  const key = r.pick(KEYS);
  const v = (): string => r.pick(VALUES);
  switch (r.int(6)) {
    case 0:
      return `${key}=${v()}`;
    case 1:
      return `${key}!=${v()}`;
    case 2:
      return `${key} in (${v()},${v()})`;
    case 3:
      return `${key} notin (${v()},${v()})`;
    case 4:
      return key;
    default:
      return `!${key}`;
  }
}

function randomRequest(r: Random, nodeId: string): WatchRequest {
  const gvr = r.pick(GVRS);
  if (r.chance(0.3)) return { nodeId, gvr, name: r.pick(NAMES), namespace: r.pick(NAMESPACES) };
  const roll = r.next();
  const selector =
    roll < 0.05
      ? Everything
      : roll < 0.08
        ? Nothing
        : parseSelector(Array.from({ length: 1 + r.int(2) }, () => randomRequirement(r)).join(','));
  return r.chance(0.2) ? { nodeId, gvr, selector } : { nodeId, gvr, namespace: r.pick(NAMESPACES), selector };
}

function randomLabels(r: Random): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const key of KEYS) if (r.chance(0.5)) labels[key] = r.pick(VALUES);
  return labels;
}

/** The instances `explain` says an event with these labels reaches, as EnqueueRecorder prints them. */
function explained(coordinator: IndexedWatchCoordinator, query: RouteQuery): Set<string> {
  return new Set(coordinator.explain(query).routes.map((route) => `${route.parent} ${route.instance}`));
}

describe('explain against routing', () => {
  it.each([11, 12, 13, 14, 15])(
    'names exactly the instances routeEvent enqueues, and explains every other watch of the GVR (seed %i)',
    async (seed) => {
      const r = new Random(seed);
      const { coordinator, enqueued } = newHarness();
      const instances = Array.from({ length: 24 }, (_, i) => ({ parent: PARENTS[i % 2]!, namespace: `ns${1 + (i % 2)}`, name: `i${i}` }));
      // Passes left open, so pending watches (which route too) are in the mix.
      const open = new Map<string, { done(commit: boolean): void }>();
      let routes = 0;
      let misses = 0;
      for (let round = 0; round < 5; round++) {
        for (const inst of instances) {
          const key = `${gvrKey(inst.parent)} ${inst.namespace}/${inst.name}`;
          open.get(key)?.done(r.chance(0.5));
          open.delete(key);
          if (r.chance(0.08)) {
            coordinator.removeInstance(inst.parent, inst);
            continue;
          }
          const w = coordinator.forInstance(inst.parent, inst);
          const nodes = r.int(5);
          for (let n = 0; n < nodes; n++) await w.watch(randomRequest(r, `node${r.int(3)}`));
          if (r.chance(0.3)) open.set(key, w);
          else w.done(r.chance(0.8));
        }
        const watchesOf = new Map<string, number>();
        for (const inst of coordinator.declaredWatches())
          for (const w of inst.watches) watchesOf.set(w.gvr, (watchesOf.get(w.gvr) ?? 0) + 1);
        for (let i = 0; i < 300; i++) {
          const query: RouteQuery = { gvr: r.pick(GVRS), namespace: r.pick(NAMESPACES), name: r.pick(NAMES), labels: randomLabels(r) };
          const answer = coordinator.explain(query);
          // Every indexed watch of the GVR is either a route or a miss.
          expect(answer.routes.length + answer.misses.length).toBe(watchesOf.get(gvrKey(query.gvr)) ?? 0);
          routes += answer.routes.length;
          misses += answer.misses.length;

          const asAdd: WatchEvent = { type: r.pick(['add', 'delete'] as const), ...query };
          coordinator.routeEvent(asAdd);
          expect(enqueued.take()).toEqual([...explained(coordinator, query)].sort());

          // An update reaches the union of both label sets' answers.
          const oldLabels = randomLabels(r);
          coordinator.routeEvent({ type: 'update', ...query, oldLabels });
          const union = new Set([...explained(coordinator, query), ...explained(coordinator, { ...query, labels: oldLabels })]);
          expect(enqueued.take()).toEqual([...union].sort());
        }
      }
      // Worth something only if both answers are common.
      expect(routes).toBeGreaterThan(1000);
      expect(misses).toBeGreaterThan(1000);
    },
  );
});
