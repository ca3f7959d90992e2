import { describe, expect, it } from '@jest/globals';
import { gvrKey, namespacedNameKey, type GroupVersionResource, type Selector, type WatchEvent, type WatchRequest } from '@protean/core';
import { Random } from '@protean/core/testing';
import { Everything, Nothing, parseSelector } from './deps.testkit.js';
import { configmaps, deployments, webapps } from './fixtures.testkit.js';
import { newHarness } from './harness.testkit.js';

const KEYS = ['app', 'tier', 'env', 'team', 'zone'];
const VALUES = ['a', 'b', 'c', 'd'];
const NAMESPACES = ['', 'ns1', 'ns2', 'ns3'];
const GVRS: GroupVersionResource[] = [configmaps, deployments];
const NAMES = ['o0', 'o1', 'o2', 'o3', 'o4', 'o5'];

function randomRequirement(r: Random): string {
  const key = r.pick(KEYS);
  const v = (): string => r.pick(VALUES);
  switch (r.int(7)) {
    case 0:
    case 1:
      return `${key}=${v()}`;
    case 2:
      return `${key}!=${v()}`;
    case 3:
      return `${key} in (${v()},${v()}${r.chance(0.5) ? `,${v()}` : ''})`;
    case 4:
      return `${key} notin (${v()},${v()})`;
    case 5:
      return key;
    default:
      return `!${key}`;
  }
}

function randomSelector(r: Random): Selector {
  const roll = r.next();
  if (roll < 0.04) return Everything;
  if (roll < 0.07) return Nothing;
  const parts = Array.from({ length: 1 + r.int(3) }, () => randomRequirement(r));
  return parseSelector(parts.join(','));
}

function randomLabels(r: Random): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const key of KEYS) if (r.chance(0.55)) labels[key] = r.pick(VALUES);
  if (r.chance(0.3)) labels['unrelated'] = 'x';
  return labels;
}

function randomRequest(r: Random, nodeId: string): WatchRequest {
  const gvr = r.pick(GVRS);
  if (r.chance(0.3)) return { nodeId, gvr, name: r.pick(NAMES), namespace: r.pick(NAMESPACES) };
  const namespace = r.pick(NAMESPACES);
  return r.chance(0.2) ? { nodeId, gvr, selector: randomSelector(r) } : { nodeId, gvr, namespace, selector: randomSelector(r) };
}

/** Parses selectors that count how often they are evaluated. */
function countingSelectors(): { parse: (text: string) => Selector; evaluations: number } {
  const counter = {
    evaluations: 0,
    parse: (text: string): Selector => {
      const inner = parseSelector(text);
      return {
        matches: (labels) => {
          counter.evaluations++;
          return inner.matches(labels);
        },
        toString: () => inner.toString(),
        empty: () => inner.empty(),
        requirements: () => inner.requirements(),
        matchesNothing: () => inner.matchesNothing(),
      };
    },
  };
  return counter;
}

/** What kro does: scan every request of the GVR. */
function naiveMatches(requests: ReadonlyMap<string, ReadonlyMap<string, WatchRequest>>, e: WatchEvent): string[] {
  const hit: string[] = [];
  for (const [instance, byNode] of requests) {
    const matches = [...byNode.values()].some((req) => {
      if (gvrKey(req.gvr) !== gvrKey(e.gvr)) return false;
      const ns = req.namespace ?? '';
      if (req.selector === undefined) return ns === e.namespace && req.name === e.name;
      if (ns !== '' && ns !== e.namespace) return false;
      return req.selector.matches(e.labels) || (e.oldLabels !== undefined && req.selector.matches(e.oldLabels));
    });
    if (matches) hit.push(instance);
  }
  return hit.sort();
}

describe('bucketed collection index', () => {
  it.each([1, 2, 3, 4, 5])('routes exactly like a full scan over random selectors, labels and cycles (seed %i)', async (seed) => {
    const r = new Random(seed);
    const { coordinator, enqueued } = newHarness();
    // The committed requests per instance: what the indexes must hold between cycles.
    const model = new Map<string, Map<string, WatchRequest>>();
    let routed = 0;
    let unrouted = 0;
    const instances = Array.from({ length: 30 }, (_, i) => ({ namespace: `ns${1 + (i % 3)}`, name: `inst${i}` }));

    for (let round = 0; round < 6; round++) {
      for (const inst of instances) {
        const key = `${gvrKey(webapps)} ${namespacedNameKey(inst)}`;
        const roll = r.next();
        if (roll < 0.08) {
          coordinator.removeInstance(webapps, inst);
          model.delete(key);
          continue;
        }
        if (roll < 0.25 && round > 0) continue; // not reconciled this round
        const w = coordinator.forInstance(webapps, inst);
        const cycle = new Map<string, WatchRequest>();
        const nodeCount = r.int(6);
        for (let n = 0; n < nodeCount; n++) {
          const req = randomRequest(r, `node${r.int(4)}`);
          await w.watch(req);
          cycle.set(req.nodeId, req);
        }
        const commit = r.chance(0.75);
        w.done(commit);
        if (commit) {
          if (cycle.size === 0) model.delete(key);
          else model.set(key, cycle);
        }
      }

      for (let i = 0; i < 400; i++) {
        const labels = randomLabels(r);
        const e: WatchEvent = r.chance(0.5)
          ? { type: 'update', gvr: r.pick(GVRS), namespace: r.pick(NAMESPACES), name: r.pick(NAMES), labels, oldLabels: randomLabels(r) }
          : { type: r.pick(['add', 'delete'] as const), gvr: r.pick(GVRS), namespace: r.pick(NAMESPACES), name: r.pick(NAMES), labels };
        coordinator.routeEvent(e);
        const got = enqueued.take();
        const want = naiveMatches(model, e);
        expect(got).toEqual(want);
        routed += want.length;
        unrouted += model.size - want.length;
      }
      expect(coordinator.instanceWatchCount()).toBe(model.size);
      let collection = 0;
      let scalar = 0;
      for (const byNode of model.values()) {
        for (const req of byNode.values()) {
          if (req.selector === undefined) scalar++;
          else collection++;
        }
      }
      expect(coordinator.watchRequestCount()).toEqual({ scalar, collection });
    }
    // The comparison is only worth something if both outcomes are common
    // (counted per instance and event).
    expect(routed).toBeGreaterThan(5000);
    expect(unrouted).toBeGreaterThan(5000);
  });

  it('evaluates only the selectors whose indexed label the event carries, plus those without one', async () => {
    const { coordinator, enqueued } = newHarness();
    const counter = countingSelectors();
    for (let i = 0; i < 1000; i++) {
      const w = coordinator.forInstance(webapps, { namespace: 'ns', name: `i${i}` });
      // Distinct selectors (idx), bucketed by app (first equality requirement in canonical order).
      await w.watch({ nodeId: 'c', gvr: configmaps, selector: counter.parse(`app=a${i % 100},idx=${i},tier in (web,api)`) });
      if (i < 10)
        await w.watch({ nodeId: 'scan', gvr: configmaps, namespace: 'ns', selector: counter.parse(`env!=prod,idx notin (${i})`) });
      w.done(true);
    }

    coordinator.routeEvent({
      type: 'add',
      gvr: configmaps,
      namespace: 'ns',
      name: 'x',
      labels: { app: 'a7', idx: '107', tier: 'web', env: 'prod' },
    });
    expect(enqueued.take()).toEqual(['demo.protean.dev/v1/webapps ns/i107']);
    // 10 selectors in the app=a7 bucket + 10 without an indexable requirement, not 1,010.
    expect(counter.evaluations).toBe(20);
  });

  it('evaluates a selector shared by many instances once per event', async () => {
    const { coordinator, enqueued } = newHarness();
    const counter = countingSelectors();
    for (let i = 0; i < 500; i++) {
      const w = coordinator.forInstance(webapps, { namespace: 'ns', name: `i${i}` });
      await w.watch({ nodeId: 'c', gvr: configmaps, selector: counter.parse('team=platform') });
      await w.watch({ nodeId: 'd', gvr: configmaps, selector: counter.parse('!legacy') });
      w.done(true);
    }
    coordinator.routeEvent({
      type: 'update',
      gvr: configmaps,
      namespace: 'ns',
      name: 'x',
      labels: { team: 'platform' },
      oldLabels: { team: 'other' },
    });
    expect(enqueued.take()).toHaveLength(500);
    expect(counter.evaluations).toBe(1);
    coordinator.removeInstance(webapps, { namespace: 'ns', name: 'i0' });
    coordinator.routeEvent({ type: 'add', gvr: configmaps, namespace: 'ns', name: 'x', labels: { team: 'web' } });
    expect(enqueued.take()).toHaveLength(499);
  });
});
