import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { Deferred, FakeClock, FakeInformerSource, FakeListWatch, flushMicrotasks } from '@protean/core/testing';
import { runInformer } from '@protean/watch-manager';
import { instrumentSharding, MetricsServer, shardReadiness } from '@protean/metrics';
import {
  FakeMemberLeaseClient,
  fnv1a64,
  inRanges,
  ShardedInformerSource,
  ShardMembership,
  type RangeInformerSourceFactory,
  type ShardChange,
} from '@protean/sharding';
import { Registry } from 'prom-client';

const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'team-delta', 'payments'];

function member(client: FakeMemberLeaseClient, clock: FakeClock, identity: string): ShardMembership {
  return new ShardMembership({
    client,
    clock,
    namespace: 'ctl',
    group: 'webapp',
    identity,
    keys: () => KEYS,
    wallClock: () => Date.UTC(2026, 11, 1) + clock.now(),
    logger: silentLogger(),
  });
}

async function advance(clock: FakeClock, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 10) await clock.advanceAsync(Math.min(10, left));
  await flushMicrotasks();
}

async function sample(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const out: Record<string, number> = {};
  for (const v of metric?.values ?? []) out[Object.values(v.labels).join(',')] = v.value;
  return out;
}

describe('shard metrics and readiness on a ShardMembership', () => {
  it('exports members, owned and waiting ranges, keys per member, the selector mode and transitions; a member waiting for a hold is ready', async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const a = member(client, clock, 'a');
    const b = member(client, clock, 'b');
    const registryA = new Registry();
    const registryB = new Registry();
    const removeA = instrumentSharding(registryA, a, { mode: 'server' });
    instrumentSharding(registryB, b, { mode: 'client' });
    const stopA = new AbortController();
    const stopB = new AbortController();
    // a drains slowly: the range it gives up to b is held until its passes returned.
    let drain = new Deferred();
    drain.resolve();
    const runningA = a.run(stopA.signal, async (c: ShardChange) => {
      if (c.ranges.length > 0 && a.ranges().length > 0) await drain.promise;
    });
    await advance(clock, 100);
    expect(await sample(registryA, 'dynamic_controller_shard_ranges_owned')).toEqual({ 'webapp,a': 1 });
    expect(await sample(registryA, 'dynamic_controller_shard_hash_fraction')).toEqual({ 'webapp,a': 1 });

    drain = new Deferred();
    const runningB = b.run(stopB.signal);
    await advance(clock, 100);
    // b is assigned its share but a still holds it (a's passes drain): b waits, and is ready.
    expect(b.status().waiting.map((w) => w.holders)).toEqual([['a']]);
    expect(await sample(registryB, 'dynamic_controller_shard_ranges_waiting')).toEqual({ 'webapp,b': 1 });
    expect(await sample(registryB, 'dynamic_controller_shard_ranges_owned')).toEqual({ 'webapp,b': 0 });
    expect(await sample(registryB, 'dynamic_controller_shard_members')).toEqual({ webapp: 2 });
    expect(shardReadiness(b).ready()).toEqual({ ready: true });
    const server = await MetricsServer.start({ registry: registryB, readiness: [shardReadiness(b)] });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(text).toContain('dynamic_controller_shard_selector_mode{mode="client"} 1');
      expect(text).toContain('dynamic_controller_shard_transitions_total{group="webapp",identity="b",transition="waiting"} 1');
    } finally {
      await server.stop();
    }

    drain.resolve();
    await advance(clock, 100);
    expect(await sample(registryB, 'dynamic_controller_shard_ranges_owned')).toEqual({ 'webapp,b': 1 });
    expect(await sample(registryB, 'dynamic_controller_shard_ranges_waiting')).toEqual({ 'webapp,b': 0 });
    const keys = await sample(registryB, 'dynamic_controller_shard_keys');
    expect(keys['webapp,a']! + keys['webapp,b']!).toBe(KEYS.length);
    expect(await sample(registryA, 'dynamic_controller_shard_transitions_total')).toMatchObject({
      'webapp,a,acquired': 1,
      'webapp,a,released': 1,
      'webapp,a,lost': 0,
    });
    expect(await sample(registryB, 'dynamic_controller_shard_transitions_total')).toMatchObject({
      'webapp,b,acquired': 1,
      'webapp,b,waiting': 1,
    });
    const fractions = [
      (await sample(registryA, 'dynamic_controller_shard_hash_fraction'))['webapp,a']!,
      (await sample(registryB, 'dynamic_controller_shard_hash_fraction'))['webapp,b']!,
    ];
    expect(fractions[0]! + fractions[1]!).toBeCloseTo(1, 5);

    // A member cut off past its renew deadline is not ready and owns nothing.
    client.failing = true;
    await advance(clock, 10_100);
    expect(await sample(registryA, 'dynamic_controller_shard_renewing')).toEqual({ 'webapp,a': 0 });
    expect(shardReadiness(a).ready()).toMatchObject({ ready: false });
    expect(await sample(registryA, 'dynamic_controller_shard_transitions_total')).toMatchObject({ 'webapp,a,lost': 1 });
    client.failing = false;

    removeA();
    expect(await registryA.getMetricsAsJSON()).toEqual([]);
    stopA.abort();
    stopB.abort();
    await advance(clock, 5_000);
    await Promise.all([runningA, runningB]);
  });

  it("exports the objects the replica's informers cache per resource, following a server-side share as it shrinks", async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const a = member(client, clock, 'a');
    const b = member(client, clock, 'b');
    const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
    const webapps = { group: 'example.com', version: 'v1', resource: 'webapps' };
    const cluster = new FakeInformerSource();
    for (const ns of KEYS) {
      cluster.add(configmaps, { namespace: ns, name: 'cm' });
      cluster.add(webapps, { namespace: ns, name: 'app' });
    }
    // A filtering server: each list/watch lists only the ranges it was built for.
    const factory: RangeInformerSourceFactory = (ranges) => ({
      createListWatch: (g) =>
        new FakeListWatch(g, {
          listObjects: () => cluster.objects(g).filter((o) => inRanges(fnv1a64(o.metadata.namespace ?? ''), ranges)),
        }),
    });
    const source = new ShardedInformerSource(factory, { key: 'namespace' });
    const registry = new Registry();
    instrumentSharding(registry, a, { mode: 'server', cache: source });
    const stop = new AbortController();
    for (const g of [configmaps, webapps]) runInformer(source.createListWatch(g), {}, stop.signal, { clock });
    const runningA = a.run(stop.signal, (c: ShardChange) => source.setRanges(c.ranges));
    await advance(clock, 100);
    expect(await sample(registry, 'dynamic_controller_shard_cached_objects')).toEqual({
      'webapp,a,/v1/configmaps': KEYS.length,
      'webapp,a,example.com/v1/webapps': KEYS.length,
    });

    // b joins: a's share shrinks and so does what it caches, to exactly the keys it keeps.
    const runningB = b.run(stop.signal);
    await advance(clock, 500);
    const kept = KEYS.filter((k) => inRanges(fnv1a64(k), a.ranges())).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(KEYS.length);
    expect(await sample(registry, 'dynamic_controller_shard_cached_objects')).toEqual({
      'webapp,a,/v1/configmaps': kept,
      'webapp,a,example.com/v1/webapps': kept,
    });
    stop.abort();
    await advance(clock, 5_000);
    await Promise.all([runningA, runningB]);
  });
});
