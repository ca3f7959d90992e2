import { describe, expect, it } from '@jest/globals';
import { Random } from '@protean/core/testing';
import { intersectRanges } from './rangeSet.js';
import { Cluster, KEYS, LEASE_MS, TICK_MS, type Replica } from './ShardCluster.testkit.js';

/** Advances `ms`, returning every tick at which two awake live replicas were both allowed to reconcile one range. */
async function auditRanges(cluster: Cluster, ms: number): Promise<string[]> {
  const found: string[] = [];
  for (let t = 0; t < ms; t += TICK_MS) {
    await cluster.advance(TICK_MS);
    const awake = cluster.live().filter((r) => !r.clock.frozen);
    for (const x of awake)
      for (const y of awake)
        if (x.id < y.id && intersectRanges(x.membership.ranges(), y.membership.ranges()).length > 0)
          found.push(`${x.id} and ${y.id} at ${cluster.clock.now()}`);
  }
  return found;
}

async function settledPair(
  seed: number,
  maxPassMs = 3_000,
  keys?: readonly string[],
): Promise<{ cluster: Cluster; a: Replica; b: Replica }> {
  const cluster = new Cluster(new Random(seed), { maxPassMs, abortLatencyMs: 200, watch: true, ...(keys === undefined ? {} : { keys }) });
  const [a, b] = [cluster.join(), cluster.join()];
  await cluster.until(() => cluster.coverage() === 1 && a.membership.members().length === 2 && b.membership.ranges().length > 0, 30_000);
  await cluster.advance(2_500);
  return { cluster, a, b };
}

describe('a replica frozen (SIGSTOP) past its lease (fake clock, fake leases)', () => {
  it('gives every range up on waking, whatever its first renewal answers, and claims again through the handoff', async () => {
    const { cluster, a, b } = await settledPair(21);
    cluster.freeze(b);
    // a counts b out after the lease duration and takes its ranges while b sleeps.
    await cluster.until(() => a.membership.members().length === 1 && cluster.coverage() === 1, LEASE_MS + 5_000);
    await cluster.advance(2_000);
    cluster.thaw(b);
    const overlaps = await auditRanges(cluster, 10_000);
    expect(overlaps).toEqual([]);
    expect(b.membership.status().transitions.lost).toBeGreaterThanOrEqual(1);
    // b is back in the group and has a share again, handed over by a.
    await cluster.until(() => cluster.coverage() === 1 && b.membership.ranges().length > 0, 30_000);
    expect(cluster.actingOverlaps()).toEqual([]);
    await cluster.shutdown();
  });

  it('sends no write of a pass frozen between its read and its write once it wakes past its renew deadline', async () => {
    const { cluster, b } = await settledPair(22);
    await cluster.until(() => b.inFlight.size >= 3, 5_000);
    const inFlight = [...b.inFlight.keys()];
    cluster.freeze(b);
    await cluster.advance(LEASE_MS + 5_000);
    cluster.thaw(b);
    await cluster.advance(5_000);
    const frozenPasses = cluster.passes.filter(
      (p) => p.replica === b.id && inFlight.includes(p.key) && p.start < cluster.clock.now() - 25_000,
    );
    expect(frozenPasses.length).toBeGreaterThanOrEqual(3);
    expect(cluster.outsideValidity()).toEqual([]);
    expect(cluster.actingOverlaps()).toEqual([]);
    await cluster.shutdown();
  });

  it('starts no pass from what the worker buffered when it wakes past its renew deadline, before any timer ran', async () => {
    // Short passes: most of b's keys are not in flight when it freezes, so its worker has items to start on waking.
    const { cluster, b } = await settledPair(23, 40, KEYS.slice(0, 12));
    cluster.freeze(b);
    await cluster.advance(LEASE_MS + 5_000);
    await cluster.advance(50 - (cluster.clock.now() % 50));
    // Thawed on a worker tick: the worker takes items before any of the replica's overdue timers fires.
    expect(cluster.clock.now() % 50).toBe(0);
    cluster.thaw(b);
    await cluster.advance(5_000);
    expect(cluster.outsideValidity()).toEqual([]);
    expect(cluster.actingOverlaps()).toEqual([]);
    await cluster.shutdown();
  });

  it('neither keeps its ranges nor writes when frozen while its renewal was in flight and the answer comes late', async () => {
    const { cluster, a, b } = await settledPair(24);
    b.client.freezeAfterNextUpdate = () => cluster.freeze(b);
    await cluster.until(() => b.clock.frozen, 5_000);
    await cluster.advance(LEASE_MS + 5_000);
    expect(a.membership.members()).toEqual([a.id]);
    cluster.thaw(b);
    expect(await auditRanges(cluster, 5_000)).toEqual([]);
    expect(cluster.outsideValidity()).toEqual([]);
    expect(cluster.actingOverlaps()).toEqual([]);
    await cluster.until(() => cluster.coverage() === 1 && b.membership.ranges().length > 0, 30_000);
    await cluster.shutdown();
  });
});
