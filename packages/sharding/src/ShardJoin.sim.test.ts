import { describe, expect, it } from '@jest/globals';
import { Random } from '@protean/core/testing';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges } from './HashRange.js';
import { Cluster, KEYS, LEASE_MS, RETRY_MS, TICK_MS } from './ShardCluster.testkit.js';

/** Advances `ms`; returns, per key, the longest stretch (ms) no awake live replica was allowed to reconcile it. */
async function longestUnserved(cluster: Cluster, ms: number, since: number): Promise<Map<string, number>> {
  const lastServed = new Map(KEYS.map((k) => [k, since]));
  const longest = new Map(KEYS.map((k) => [k, 0]));
  for (let t = 0; t < ms; t += TICK_MS) {
    await cluster.advance(TICK_MS);
    const now = cluster.clock.now();
    const awake = cluster.live().filter((r) => !r.clock.frozen);
    for (const k of KEYS) {
      if (awake.some((r) => inRanges(fnv1a64(k), r.membership.ranges()))) lastServed.set(k, now);
      longest.set(k, Math.max(longest.get(k)!, now - lastServed.get(k)!));
    }
  }
  return longest;
}

describe('a member joining while a killed member’s lease lingers (fake clock, fake leases)', () => {
  it('agrees with the survivors on who is alive: no key unserved longer than the lease duration plus a retry period', async () => {
    const cluster = new Cluster(new Random(31), { maxPassMs: 500, abortLatencyMs: 50, watch: true });
    const [a, , c] = [cluster.join(), cluster.join(), cluster.join()];
    await cluster.until(() => cluster.coverage() === 1 && a.membership.members().length === 3, 30_000);
    await cluster.advance(2_000);
    cluster.kill(c!);
    const killedAt = cluster.clock.now();
    // The joiner first sees the dead member's lease 10 s after its last renewal; the survivors count it out 5 s later.
    await cluster.advance(10_000);
    const d = cluster.join();
    const longest = await longestUnserved(cluster, 25_000, killedAt);
    const worst = Math.max(...longest.values());
    expect(worst).toBeLessThanOrEqual(LEASE_MS + RETRY_MS);
    expect(d.membership.members()).toEqual(a.membership.members());
    expect(cluster.overlaps()).toEqual([]);
    await cluster.shutdown();
    console.log(`join 10 s after a kill: the longest a key went unserved was ${worst} ms after the kill`);
  }, 60_000);
});
