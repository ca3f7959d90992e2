import { afterEach, describe, expect, it } from '@jest/globals';
import { FencingRequiredError, PassCancelledError, silentLogger, type ReconcileContext } from '@protean/core';
import { LogRecorder } from '@protean/core/testing';
import { createTestController, Deferred, FakeInformerSource, noObjectCache, type TestController } from '@protean/testing';
import { assignShards } from './assignShards.js';
import { fnv1a64 } from './fnv1a64.js';
import { FULL_RANGE, inRanges, type HashRange } from './HashRange.js';
import { ShardedInformerSource } from './ShardedInformerSource.js';
import { ShardGate } from './ShardGate.js';
import { ShardingConfigError } from './ShardingConfigError.js';

const gvr = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const NAMESPACES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'team-delta', 'payments'];
const shares = assignShards(['r0', 'r1'], NAMESPACES);
const controllers: TestController<ShardedInformerSource>[] = [];

afterEach(async () => {
  for (const c of controllers.splice(0)) await c.dispose();
});

function ctx(signal: AbortSignal = new AbortController().signal): ReconcileContext {
  return { signal, gvr, logger: silentLogger(), watcher: undefined as never, ...noObjectCache };
}

describe('ShardGate', () => {
  it('runs the handler only for owned instances and tracks passes in flight', async () => {
    const gate = new ShardGate({ key: 'namespace', ranges: shares.get('r0')!, fencing: 'none' });
    const seen: string[] = [];
    const wrapped = gate.wrap(async (item) => void seen.push(item.namespace));
    for (const ns of NAMESPACES) await wrapped({ namespace: ns, name: 'x' }, ctx());
    expect(seen).toEqual(NAMESPACES.filter((ns) => inRanges(fnv1a64(ns), shares.get('r0')!)));
    expect(gate.inFlight()).toBe(0);
    expect(gate.owns(gvr, { namespace: seen[0]!, name: 'y' })).toBe(true);
  });

  it('on losing a range, aborts the passes of its instances and resolves once they returned; kept ones run on', async () => {
    const gate = new ShardGate({ key: 'namespace', ranges: [FULL_RANGE], fencing: 'none' });
    const kept = NAMESPACES.find((ns) => inRanges(fnv1a64(ns), shares.get('r0')!))!;
    const lost = NAMESPACES.find((ns) => inRanges(fnv1a64(ns), shares.get('r1')!))!;
    const release = new Deferred();
    const aborted: string[] = [];
    const wrapped = gate.wrap(async (item, c) => {
      c.signal.addEventListener('abort', () => void aborted.push(item.namespace));
      await release.promise;
    });
    const passes = [wrapped({ namespace: kept, name: 'x' }, ctx()), wrapped({ namespace: lost, name: 'x' }, ctx())];
    expect(gate.inFlight()).toBe(2);
    let drained = false;
    const handover = gate.setRanges(shares.get('r0')!).then(() => void (drained = true));
    await Promise.resolve();
    expect(aborted).toEqual([lost]);
    expect(drained).toBe(false);
    release.resolve();
    await handover;
    await Promise.all(passes);
    expect(drained).toBe(true);
    expect(aborted).toEqual([lost]);
  });

  it('rejects a pass cut off by a lost range with a PassCancelledError (range-lost), whatever the handler threw; other errors pass through', async () => {
    const gate = new ShardGate({ key: 'namespace', ranges: [FULL_RANGE], fencing: 'none' });
    const lost = NAMESPACES.find((ns) => inRanges(fnv1a64(ns), shares.get('r1')!))!;
    const kept = NAMESPACES.find((ns) => inRanges(fnv1a64(ns), shares.get('r0')!))!;
    const wrapped = gate.wrap(
      (item, c) =>
        new Promise<void>((_, reject) => {
          if (item.namespace === kept) reject(new Error('handler bug'));
          else c.signal.addEventListener('abort', () => reject(new Error('request aborted')), { once: true });
        }),
    );
    const cut = wrapped({ namespace: lost, name: 'x' }, ctx());
    const handover = gate.setRanges(shares.get('r0')!);
    const err = await cut.then(
      () => undefined,
      (e: unknown) => e,
    );
    await handover;
    expect(err).toBeInstanceOf(PassCancelledError);
    expect(err).toMatchObject({ reason: 'range-lost', message: 'the shard lost the range of this instance' });
    expect((err as Error).cause).toMatchObject({ message: 'request aborted' });
    await expect(wrapped({ namespace: kept, name: 'x' }, ctx())).rejects.toThrow('handler bug');
  });

  it('shards by uid through uidOf, and refuses bad options', async () => {
    const h = fnv1a64('uid-o0');
    const gate = new ShardGate({
      key: 'uid',
      ranges: [{ start: h, end: h + 1n }],
      uidOf: (_g, item) => (item.name === 'ghost' ? undefined : `uid-${item.name}`),
      fencing: 'none',
    });
    expect(gate.owns(gvr, { namespace: 'ns', name: 'o0' })).toBe(true);
    expect(gate.owns(gvr, { namespace: 'ns', name: 'o1' })).toBe(false);
    expect(gate.owns(gvr, { namespace: 'ns', name: 'ghost' })).toBe(false);
    expect(() => new ShardGate({ key: 'uid', fencing: 'none' })).toThrow(/uidOf/);
    expect(() => new ShardGate({ key: 'name' as never, fencing: 'none' })).toThrow(ShardingConfigError);
    await expect(gate.setRanges([{ start: 1n, end: 0n }])).rejects.toThrow(ShardingConfigError);
  });

  it('two DynamicController replicas reconcile disjoint shares; after a rebalance the leaver reconciles nothing more', async () => {
    const cluster = new FakeInformerSource();
    for (const ns of NAMESPACES) cluster.add(gvr, { namespace: ns, name: 'app' });
    const passes: [string, string][] = [];
    const replicas = ['r0', 'r1'].map((member) => {
      const ranges: readonly HashRange[] = shares.get(member)!;
      const source = new ShardedInformerSource(cluster, { key: 'namespace', ranges });
      const gate = new ShardGate({ key: 'namespace', ranges, fencing: 'none' });
      const t = createTestController({ source });
      controllers.push(t);
      const handler = gate.wrap(async (item) => void passes.push([member, item.namespace]));
      return { member, source, gate, t, handler };
    });
    for (const r of replicas) {
      await r.t.start();
      await r.t.register(gvr, r.handler);
    }
    await replicas[0]!.t.waitFor(() => passes.length === NAMESPACES.length);
    for (const [member, ns] of passes) expect(inRanges(fnv1a64(ns), shares.get(member)!)).toBe(true);
    expect(new Set(passes.map((p) => p[1])).size).toBe(NAMESPACES.length);

    // r1 leaves: it drains and drops its share first, then r0 takes everything.
    passes.length = 0;
    const [r0, r1] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    await r1.gate.setRanges([]);
    r1.source.setRanges([]);
    await r0.gate.setRanges([FULL_RANGE]);
    r0.source.setRanges([FULL_RANGE]);
    const moved = NAMESPACES.filter((ns) => inRanges(fnv1a64(ns), shares.get('r1')!));
    await r0.t.waitFor(() => passes.length === moved.length);
    cluster.update(gvr, { namespace: moved[0]!, name: 'app', generation: 2 });
    await r0.t.waitFor(() => passes.length === moved.length + 1);
    expect(passes.every(([member]) => member === 'r0')).toBe(true);
    expect(passes.map((p) => p[1]).sort()).toEqual([...moved, moved[0]!].sort());
  });
});

describe('ShardGate fencing', () => {
  /** A lease validity a test turns on and off; `whenValid` waits are ended by `renew()`. */
  function switchableValidity(valid: boolean) {
    const waiters = new Set<() => void>();
    return {
      valid,
      description: 'shard member lease test/r0',
      isValid(): boolean {
        return this.valid;
      },
      whenValid(signal: AbortSignal): Promise<void> {
        if (this.valid) return Promise.resolve();
        return new Promise<void>((resolve) => {
          waiters.add(resolve);
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
      },
      waiting: (): number => waiters.size,
      renew(): void {
        this.valid = true;
        for (const w of waiters) w();
        waiters.clear();
      },
    };
  }

  it('refuses to be built without a fence, naming the gate and the fix; fencing: none is accepted', () => {
    const err = (() => {
      try {
        return new ShardGate({ key: 'namespace' } as never);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FencingRequiredError);
    expect(err).toMatchObject({ name: 'FencingRequiredError', component: 'ShardGate' });
    expect((err as Error).message).toMatch(/validity: membership\.validity/);
    expect(() => new ShardGate({ key: 'namespace', validity: undefined } as never)).toThrow(FencingRequiredError);
    expect(new ShardGate({ key: 'namespace', fencing: 'none' }).fencing).toBe('none');
  });

  it("logs fencing: 'none' once, at the first pass", async () => {
    const log = new LogRecorder('warn');
    const gate = new ShardGate({ key: 'namespace', ranges: [FULL_RANGE], fencing: 'none' });
    const wrapped = gate.wrap(async () => undefined);
    const c = { ...ctx(), logger: log.logger };
    for (let i = 0; i < 3; i++) await wrapped({ namespace: 'a', name: `x${i}` }, c);
    expect(log.find("fencing: 'none'")).toHaveLength(1);
  });

  it('an item refused past the validity waits for it and runs when the lease is valid again, with no failure counted', async () => {
    const validity = switchableValidity(false);
    const gate = new ShardGate({ key: 'namespace', ranges: [FULL_RANGE], validity });
    const t = createTestController();
    controllers.push(t as never);
    const passes: string[] = [];
    await t.start();
    t.source.add(gvr, { namespace: 'a', name: 'app' });
    await t.register(
      gvr,
      gate.wrap(async (item) => void passes.push(item.name)),
    );
    await t.waitFor(() => validity.waiting() === 1);
    expect(passes).toEqual([]);
    expect(t.controller.status().queue.recentFailures).toEqual([]);
    validity.renew();
    await t.waitFor(() => passes.length === 1);
    expect(passes).toEqual(['app']);
  });

  it('a gate built without a fence by a TypeScript-less caller keeps the controller from being built through the pass gate token', () => {
    const gate = { fencing: undefined, wrap: (h: never) => h, run: async () => undefined };
    expect(() => createTestController({ passGate: gate as never })).toThrow(FencingRequiredError);
  });
});
