import { describe, expect, it } from '@jest/globals';
import { Random } from '@protean/core/testing';
import { assignShards, movedKeys, ownerOf } from './assignShards.js';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges } from './HashRange.js';
import { Cluster, KEYS, LEASE_MS, ownerOfKey, RENEW_DEADLINE_MS, RETRY_MS, TICK_MS, type Pass } from './ShardCluster.testkit.js';

describe('exclusive shard handoff (fake clock, fake leases, audited passes)', () => {
  it('hands a gracefully leaving member’s ranges over about at once, after its passes drained', async () => {
    const cluster = new Cluster(new Random(1), { maxPassMs: 3_000, abortLatencyMs: 200, watch: true });
    const [a, b, c] = [cluster.join(), cluster.join(), cluster.join()];
    await cluster.until(() => cluster.coverage() === 1 && a.membership.members().length === 3, 30_000);
    await cluster.advance(3_000);
    const share = [...b.membership.ranges()];
    const inShare = (p: Pass): boolean => inRanges(fnv1a64(p.key), share);
    cluster.leave(b);
    const leftAt = cluster.clock.now();
    const handoffMs = await cluster.until(() => cluster.coverage() === 1 && a.membership.members().length === 2, 30_000);
    // Drain (at most the 200 ms abort latency) plus a few lease writes and lists; no retry period, no lease duration.
    expect(handoffMs).toBeLessThan(500);
    // b's passes were aborted and drained before anyone else started a key of its share.
    const lastOfB = Math.max(...cluster.passes.filter((p) => p.replica === b.id).map((p) => p.end!));
    expect(lastOfB - leftAt).toBeLessThanOrEqual(200);
    const firstAfter = Math.min(...cluster.passes.filter((p) => p.replica !== b.id && p.start >= leftAt && inShare(p)).map((p) => p.start));
    expect(firstAfter).toBeGreaterThanOrEqual(lastOfB);
    expect(cluster.overlaps()).toEqual([]);
    expect(c.membership.status().transitions.acquired).toBeGreaterThanOrEqual(2);
    await cluster.shutdown();
    console.log(`graceful leave: coverage restored ${handoffMs} ms after the stop (fake clock, 10 ms ticks)`);
  });

  it('takes a killed member’s ranges over only once its lease expired, within lease duration + retry period of the kill', async () => {
    const cluster = new Cluster(new Random(2), { maxPassMs: 3_000, abortLatencyMs: 200, watch: true });
    const [a, b] = [cluster.join(), cluster.join(), cluster.join()];
    await cluster.until(() => cluster.coverage() === 1 && a.membership.members().length === 3, 30_000);
    await cluster.advance(3_100);
    const lastRenewal = Date.parse(cluster.store.read('ctl', b!.membership.leaseName)!.spec!.renewTime!) - Date.UTC(2026, 11, 1);
    cluster.kill(b!);
    const killedAt = cluster.clock.now();
    const handoffMs = await cluster.until(() => cluster.coverage() === 1, 30_000);
    expect(killedAt + handoffMs - lastRenewal).toBeGreaterThanOrEqual(LEASE_MS);
    expect(handoffMs).toBeLessThanOrEqual(LEASE_MS + RETRY_MS);
    expect(cluster.overlaps()).toEqual([]);
    await cluster.shutdown();
    console.log(`kill: coverage restored ${handoffMs} ms after the kill, ${killedAt + handoffMs - lastRenewal} ms after its last renewal`);
  });

  it('stops a member whose lease requests hang at its renew deadline, before the others take its ranges over', async () => {
    const cluster = new Cluster(new Random(4), { maxPassMs: 3_000, abortLatencyMs: 200, watch: true });
    const [a, b] = [cluster.join(), cluster.join()];
    await cluster.until(() => cluster.coverage() === 1 && a.membership.members().length === 2, 30_000);
    await cluster.advance(2_500);
    const lastRenewal = Date.parse(cluster.store.read('ctl', b.membership.leaseName)!.spec!.renewTime!) - Date.UTC(2026, 11, 1);
    b.client.hanging = true;
    const share = [...b.membership.ranges()];
    await cluster.until(() => b.membership.ranges().length === 0, 20_000);
    const stoppedAt = cluster.clock.now();
    expect(stoppedAt - lastRenewal).toBeLessThanOrEqual(RENEW_DEADLINE_MS + TICK_MS);
    expect(b.membership.status().transitions.lost).toBe(1);
    await cluster.until(() => inRanges(share[0]!.start, a.membership.ranges()), 20_000);
    expect(cluster.clock.now() - lastRenewal).toBeGreaterThanOrEqual(LEASE_MS);
    b.client.hanging = false;
    await cluster.until(() => cluster.coverage() === 1 && b.membership.ranges().length > 0, 30_000);
    expect(cluster.overlaps()).toEqual([]);
    await cluster.shutdown();
  });

  it('moves only the keys the assignment moves when a member joins', async () => {
    const cluster = new Cluster(new Random(3), { maxPassMs: 500, abortLatencyMs: 50, watch: true });
    const [a] = [cluster.join(), cluster.join(), cluster.join()];
    await cluster.until(() => cluster.coverage() === 1 && a!.membership.members().length === 3, 30_000);
    const before = new Map(KEYS.map((k) => [k, ownerOfKey(cluster, k)]));
    const assignmentBefore = a!.membership.assignment()!;
    cluster.join();
    await cluster.until(() => cluster.coverage() === 1 && a!.membership.members().length === 4, 30_000);
    await cluster.advance(1_000);
    const moved = KEYS.filter((k) => ownerOfKey(cluster, k).join() !== before.get(k)!.join());
    const expected = movedKeys(assignmentBefore, a!.membership.assignment()!, KEYS);
    expect(moved.sort()).toEqual([...expected].sort());
    for (const k of KEYS) expect(ownerOfKey(cluster, k)).toEqual([ownerOf(assignShards(a!.membership.members(), KEYS), fnv1a64(k))]);
    expect(cluster.overlaps()).toEqual([]);
    await cluster.shutdown();
    console.log(`join of a 4th member: ${moved.length} of ${KEYS.length} keys changed owner; assignShards moved ${expected.length}`);
  });

  it('moves only what the assignment moves over 300 namespaces: a join, then a leave', async () => {
    const keys = Array.from({ length: 300 }, (_, i) => `team-${i}`);
    const cluster = new Cluster(new Random(5), { maxPassMs: 300, abortLatencyMs: 50, watch: true, keys });
    const [a, b] = [cluster.join(), cluster.join(), cluster.join()];
    await cluster.until(() => cluster.coverage() === 1 && a.membership.members().length === 3, 30_000);
    const figures: string[] = [];
    const measure = async (what: string, change: () => void, members: number): Promise<void> => {
      const before = new Map(keys.map((k) => [k, ownerOfKey(cluster, k).join()]));
      const assignmentBefore = a.membership.assignment()!;
      change();
      await cluster.until(() => cluster.coverage() === 1 && a.membership.members().length === members, 30_000);
      await cluster.advance(500);
      const moved = keys.filter((k) => ownerOfKey(cluster, k).join() !== before.get(k));
      const expected = movedKeys(assignmentBefore, a.membership.assignment()!, keys);
      expect(moved.sort()).toEqual([...expected].sort());
      figures.push(`${what}: ${moved.length} of ${keys.length} keys changed owner (assignShards moved ${expected.length})`);
    };
    await measure('join of a 4th member (sorts last)', () => void cluster.join(), 4);
    await measure('leave of the 2nd of 4 members', () => cluster.leave(b), 3);
    expect(cluster.overlaps()).toEqual([]);
    await cluster.shutdown();
    console.log(figures.join('\n'));
  });

  for (const seed of [11, 12, 13, 14]) {
    const watch = seed % 2 === 0;
    it(`never lets two members act on one key at once under random joins, leaves, kills, partitions and freezes (seed ${seed}, ${watch ? 'watching' : 'polling'})`, async () => {
      const random = new Random(seed);
      const cluster = new Cluster(random, { maxPassMs: 4_000, abortLatencyMs: 300, watch });
      cluster.join();
      cluster.join();
      let freezes = 0;
      for (let event = 0; event < 12; event++) {
        await cluster.advance(1_000 + random.int(8_000));
        const live = cluster.live();
        const awake = live.filter((r) => !r.clock.frozen);
        const roll = random.next();
        if (awake.length < 2 || (roll < 0.3 && live.length < 5)) cluster.join();
        else if (roll < 0.45) cluster.leave(random.pick(awake));
        else if (roll < 0.6) cluster.kill(random.pick(awake));
        else if (roll < 0.8) {
          // A partition of up to 27 s: past the renew deadline the member stops everything, before its lease can expire.
          const r = random.pick(awake);
          r.client.sever();
          const heal = (): void => {
            if (r.alive) r.client.heal();
          };
          cluster.clock.setTimeout(heal, 2_000 + random.int(25_000));
        } else {
          // A freeze (SIGSTOP, a VM pause) of 5 to 30 s: on waking past its renew deadline the member acts on nothing.
          const r = random.pick(awake);
          cluster.freeze(r);
          freezes++;
          cluster.clock.setTimeout(() => cluster.thaw(r), 5_000 + random.int(25_000));
        }
      }
      // Quiet: every live member wakes, renews again and the share is whole.
      for (const r of cluster.live()) {
        if (r.clock.frozen) cluster.thaw(r);
        r.client.heal();
      }
      await cluster.until(() => cluster.coverage() === 1, LEASE_MS * 3);
      expect(cluster.overlaps()).toEqual([]);
      expect(cluster.actingOverlaps()).toEqual([]);
      expect(cluster.outsideValidity()).toEqual([]);
      expect(cluster.passes.length).toBeGreaterThan(100);
      await cluster.shutdown();
      console.log(`seed ${seed}: ${freezes} freezes, ${cluster.passes.length} passes, none acting on a key another member acted on`);
    }, 60_000);
  }
});
