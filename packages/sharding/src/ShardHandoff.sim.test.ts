import { describe, expect, it } from '@jest/globals';
import { silentLogger, type GroupVersionResource, type Handler, type ReconcileContext } from '@protean/core';
import { FakeClock, flushMicrotasks, NoopInstanceWatcher, Random } from '@protean/core/testing';
import { LeaseRequestError, type Lease, type LeaseWatchEvent, type LeaseWatchSelector } from '@protean/leader-election';
import { applyShardChange } from './applyShardChange.js';
import { assignShards, movedKeys, ownerOf } from './assignShards.js';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges } from './HashRange.js';
import { FakeMemberLeaseClient, type MemberLeaseClient } from './MemberLeaseClient.js';
import { rangeFraction, unionRanges } from './rangeSet.js';
import { ShardGate } from './ShardGate.js';
import { ShardMembership } from './ShardMembership.js';

// client-go's timings, on a fake clock.
const LEASE_MS = 15_000;
const RENEW_DEADLINE_MS = 10_000;
const RETRY_MS = 2_000;
const TICK_MS = 10;
const GVR: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const KEYS = Array.from({ length: 60 }, (_, i) => `team-${i}`);

/** One replica's connection to the shared fake: a killed or partitioned replica makes no call, and its watches end. */
class ReplicaClient implements MemberLeaseClient {
  dead = false;
  /** While true, calls wait until their signal aborts (a stalled connection). */
  hanging = false;
  private cut = new AbortController();
  constructor(private readonly inner: FakeMemberLeaseClient) {}
  /** Cuts the replica off: calls fail, open watches break. */
  sever(): void {
    this.dead = true;
    this.cut.abort();
    this.cut = new AbortController();
  }
  heal(): void {
    this.dead = false;
  }
  get(ns: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    return this.guard('get', () => this.inner.get(ns, name, signal), signal);
  }
  create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.guard('create', () => this.inner.create(lease, signal), signal);
  }
  update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.guard('update', () => this.inner.update(lease, signal), signal);
  }
  list(ns: string, selector: string, signal: AbortSignal): Promise<Lease[]> {
    return this.guard('get', () => this.inner.list(ns, selector, signal), signal);
  }
  delete(ns: string, name: string, rv: string, signal: AbortSignal): Promise<boolean> {
    return this.guard('update', () => this.inner.delete(ns, name, rv, signal), signal);
  }
  watch(ns: string, selector: LeaseWatchSelector, onEvent: (e: LeaseWatchEvent) => void, signal: AbortSignal): Promise<void> {
    const cut = this.cut.signal;
    return this.guard('watch', async () => {
      await this.inner.watch(ns, selector, onEvent, AbortSignal.any([signal, cut]));
      if (cut.aborted) throw new Error('the watch connection broke');
    });
  }
  private async guard<T>(verb: 'get' | 'create' | 'update' | 'watch', call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.hanging && signal !== undefined) {
      await new Promise<void>((resolve) =>
        signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      throw new LeaseRequestError(verb, 'ns/lease', 'aborted', { reason: 'Aborted' });
    }
    if (this.dead) throw new LeaseRequestError(verb, 'ns/lease', 'request failed: connect ECONNREFUSED', { reason: 'NetworkError' });
    const result = await call();
    // An answer that arrives after the cut is lost with the connection.
    if (this.dead) throw new LeaseRequestError(verb, 'ns/lease', 'request failed: socket hang up', { reason: 'NetworkError' });
    return result;
  }
}

interface Pass {
  readonly key: string;
  readonly replica: string;
  readonly start: number;
  end?: number;
}

interface Replica {
  readonly id: string;
  readonly client: ReplicaClient;
  readonly membership: ShardMembership;
  readonly gate: ShardGate;
  readonly stop: AbortController;
  readonly running: Promise<void>;
  readonly inFlight: Map<string, Pass>;
  /** Pending handler timers, cleared when the process dies. */
  readonly timers: Set<() => void>;
  alive: boolean;
  stopping: boolean;
}

/**
 * A cluster of sharded replicas on one fake clock and one fake Lease
 * store. Each replica runs ShardMembership + ShardGate as an application
 * does (applyShardChange), and a worker that, every tick, starts a pass of
 * every key it does not have in flight; the gate decides whether the pass
 * runs. Handlers are slow (up to `maxPassMs`) and stop `abortLatencyMs`
 * after their signal aborts. Every pass is audited with its start and end.
 */
class Cluster {
  readonly clock = new FakeClock(0);
  readonly store = new FakeMemberLeaseClient();
  readonly replicas: Replica[] = [];
  readonly passes: Pass[] = [];
  private next = 0;

  constructor(
    private readonly random: Random,
    private readonly opts: { maxPassMs: number; abortLatencyMs: number; watch: boolean; keys?: readonly string[] },
  ) {
    if (!opts.watch) this.store.watchFailing = true;
  }

  join(): Replica {
    const id = `r${String(this.next++).padStart(2, '0')}`;
    const client = new ReplicaClient(this.store);
    const membership = new ShardMembership({
      client,
      namespace: 'ctl',
      group: 'webapp',
      identity: id,
      keys: () => this.keys,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: RENEW_DEADLINE_MS,
      retryPeriodMs: RETRY_MS,
      clock: this.clock,
      wallClock: () => Date.UTC(2026, 11, 1) + this.clock.now(),
      logger: silentLogger(),
    });
    const gate = new ShardGate({ key: 'namespace' });
    const stop = new AbortController();
    const replica: Replica = {
      id,
      client,
      membership,
      gate,
      stop,
      running: membership.run(stop.signal, applyShardChange({ gate })),
      inFlight: new Map(),
      timers: new Set(),
      alive: true,
      stopping: false,
    };
    replica.running.catch(() => undefined);
    this.replicas.push(replica);
    return replica;
  }

  /** A graceful stop: the membership drains, then releases its lease; the worker stops taking new passes. */
  leave(r: Replica): void {
    r.stopping = true;
    r.stop.abort();
  }

  /** SIGKILL: no more calls, no release, and every pass in flight ends now with the process. */
  kill(r: Replica): void {
    r.alive = false;
    r.client.sever();
    for (const pass of r.inFlight.values()) pass.end = this.clock.now();
    r.inFlight.clear();
    for (const cancel of r.timers) cancel();
    r.timers.clear();
  }

  live(): Replica[] {
    return this.replicas.filter((r) => r.alive && !r.stopping);
  }

  /** The share of the hash space that some live replica reconciles now. */
  coverage(): number {
    return rangeFraction(unionRanges(...this.live().map((r) => r.membership.ranges())));
  }

  async advance(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += TICK_MS) {
      // The workers take new items every 50 ms (the handoff itself runs on every tick).
      if (this.clock.now() % 50 === 0) for (const r of this.replicas) if (r.alive && !r.stopping) this.work(r);
      await this.clock.advanceAsync(TICK_MS);
      await flushMicrotasks(40);
    }
  }

  /** Advances until `done()` holds (checked every tick); returns how long it took. */
  async until(done: () => boolean, limitMs: number): Promise<number> {
    const from = this.clock.now();
    while (!done()) {
      if (this.clock.now() - from > limitMs) throw new Error(`not reached within ${limitMs} ms`);
      await this.advance(TICK_MS);
    }
    return this.clock.now() - from;
  }

  /** Passes of one key by two replicas that overlap in time. */
  overlaps(): string[] {
    const byKey = new Map<string, Pass[]>();
    for (const p of this.passes) (byKey.get(p.key) ?? byKey.set(p.key, []).get(p.key)!).push(p);
    const found: string[] = [];
    for (const [key, list] of byKey) {
      const sorted = [...list].sort((a, b) => a.start - b.start);
      for (let i = 0; i < sorted.length; i++) {
        for (let j = i + 1; j < sorted.length && sorted[j]!.start < (sorted[i]!.end ?? Infinity); j++) {
          if (sorted[j]!.replica !== sorted[i]!.replica)
            found.push(
              `${key}: ${sorted[i]!.replica} [${sorted[i]!.start}, ${sorted[i]!.end}) and ${sorted[j]!.replica} at ${sorted[j]!.start}`,
            );
        }
      }
    }
    return found;
  }

  async shutdown(): Promise<void> {
    for (const r of this.replicas) if (r.alive && !r.stopping) this.leave(r);
    await this.advance(2_000);
  }

  get keys(): readonly string[] {
    return this.opts.keys ?? KEYS;
  }

  private work(r: Replica): void {
    const handler: Handler = (item, ctx) => this.pass(r, item.namespace, ctx);
    const wrapped = r.gate.wrap(handler);
    for (const key of this.keys) {
      if (r.inFlight.has(key) || !r.gate.owns(GVR, { namespace: key, name: 'app' })) continue;
      const ctx: ReconcileContext = {
        signal: new AbortController().signal,
        gvr: GVR,
        watcher: new NoopInstanceWatcher(),
        logger: silentLogger(),
      };
      r.inFlight.set(key, { key, replica: r.id, start: -1 }); // reserved until the gate runs the handler
      void wrapped({ namespace: key, name: 'app' }, ctx).finally(() => {
        const pass = r.inFlight.get(key);
        if (pass !== undefined && pass.start === -1) r.inFlight.delete(key);
      });
    }
  }

  private pass(r: Replica, key: string, ctx: ReconcileContext): Promise<void> {
    const pass: Pass = { key, replica: r.id, start: this.clock.now() };
    this.passes.push(pass);
    r.inFlight.set(key, pass);
    const duration = 1 + this.random.int(this.opts.maxPassMs);
    return new Promise<void>((resolve) => {
      let timer: ReturnType<FakeClock['setTimeout']> | undefined;
      const finish = (): void => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        r.timers.delete(cancel);
        if (r.alive) {
          pass.end = this.clock.now();
          r.inFlight.delete(key);
        }
        resolve();
      };
      const cancel = (): void => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        resolve();
      };
      r.timers.add(cancel);
      timer = this.clock.setTimeout(finish, duration);
      ctx.signal.addEventListener(
        'abort',
        () => {
          if (timer !== undefined) this.clock.clearTimeout(timer);
          timer = this.clock.setTimeout(finish, this.random.int(this.opts.abortLatencyMs + 1));
        },
        { once: true },
      );
    });
  }
}

/** Which live replicas reconcile `key` now. */
function ownerOfKey(cluster: Cluster, key: string): string[] {
  return cluster
    .live()
    .filter((r) => inRanges(fnv1a64(key), r.membership.ranges()))
    .map((r) => r.id);
}

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
    it(`never lets two members reconcile one key at once under random joins, leaves, kills and partitions (seed ${seed}, ${watch ? 'watching' : 'polling'})`, async () => {
      const random = new Random(seed);
      const cluster = new Cluster(random, { maxPassMs: 4_000, abortLatencyMs: 300, watch });
      cluster.join();
      cluster.join();
      for (let event = 0; event < 12; event++) {
        await cluster.advance(1_000 + random.int(8_000));
        const live = cluster.live();
        const roll = random.next();
        if (live.length < 2 || (roll < 0.35 && live.length < 5)) cluster.join();
        else if (roll < 0.55) cluster.leave(random.pick(live));
        else if (roll < 0.75) cluster.kill(random.pick(live));
        else {
          // A partition of up to 27 s: past the renew deadline the member stops everything, before its lease can expire.
          const r = random.pick(live);
          r.client.sever();
          const healAt = cluster.clock.now() + 2_000 + random.int(25_000);
          const heal = (): void => {
            if (r.alive) r.client.heal();
          };
          cluster.clock.setTimeout(heal, healAt - cluster.clock.now());
        }
      }
      // Quiet: every live member renews again and the share is whole.
      for (const r of cluster.live()) r.client.heal();
      await cluster.until(() => cluster.coverage() === 1, LEASE_MS * 3);
      const overlaps = cluster.overlaps();
      expect(overlaps).toEqual([]);
      expect(cluster.passes.length).toBeGreaterThan(100);
      await cluster.shutdown();
    }, 60_000);
  }
});
