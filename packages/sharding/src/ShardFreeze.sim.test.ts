import { describe, expect, it } from '@jest/globals';
import { Random } from '@protean/core/testing';
import { intersectRanges } from './rangeSet.js';
import { Cluster, LEASE_MS, TICK_MS, type Replica } from './ShardCluster.testkit.js';

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

async function settledPair(seed: number): Promise<{ cluster: Cluster; a: Replica; b: Replica }> {
  const cluster = new Cluster(new Random(seed), { maxPassMs: 3_000, abortLatencyMs: 200, watch: true });
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
});
