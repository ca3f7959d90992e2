import { afterEach, describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { FakeClock, flushMicrotasks, Random } from '@protean/core/testing';
import { FakeLeaseClient } from './FakeLeaseClient.js';
import type { Lease } from './Lease.js';
import type { LeaseClient, LeaseWatchEvent, LeaseWatchSelector } from './LeaseClient.js';
import { LeaseRequestError } from './LeaseRequestError.js';
import { LeaderElector } from './LeaderElector.js';

const EPOCH = Date.parse('2026-12-01T10:00:00Z');
const NS = 'ns';
const NAME = 'ctl';

/** One replica's view of the shared fake: `dead` makes every call of it fail, as a killed process makes none. */
class ReplicaClient implements LeaseClient {
  private isDead = false;
  private cut = new AbortController();
  constructor(private readonly inner: FakeLeaseClient) {}
  /** While true, every call fails and open watches have ended. */
  get dead(): boolean {
    return this.isDead;
  }
  set dead(value: boolean) {
    if (value && !this.isDead) {
      this.cut.abort();
      this.cut = new AbortController();
    }
    this.isDead = value;
  }
  get(namespace: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    return this.dead ? this.fail('get') : this.inner.get(namespace, name, signal);
  }
  create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.dead ? this.fail('create') : this.inner.create(lease, signal);
  }
  update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.dead ? this.fail('update') : this.inner.update(lease, signal);
  }
  watch(namespace: string, selector: LeaseWatchSelector, onEvent: (e: LeaseWatchEvent) => void, signal: AbortSignal): Promise<void> {
    if (this.dead) return this.fail('watch');
    const cut = this.cut.signal;
    return this.inner.watch(namespace, selector, onEvent, AbortSignal.any([signal, cut])).then(() => {
      if (cut.aborted) throw new LeaseRequestError('watch', `${NS}/${NAME}`, 'the watch connection broke', { reason: 'NetworkError' });
    });
  }
  private fail(verb: 'get' | 'create' | 'update' | 'watch'): Promise<never> {
    return Promise.reject(new LeaseRequestError(verb, `${NS}/${NAME}`, 'request failed: connect ECONNREFUSED', { reason: 'NetworkError' }));
  }
}

let clock = new FakeClock();
const stops: AbortController[] = [];

afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await advance(20_000);
  clock = new FakeClock();
});

async function advance(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 50) await clock.advanceAsync(Math.min(50, left));
  await flushMicrotasks();
}

/** A replica leading from its first term until `stop` aborts; `ledAt` is when its term started, `terms` each term's span. */
function replica(
  shared: FakeLeaseClient,
  identity: string,
  random: () => number = () => 0.5,
): { client: ReplicaClient; stop: AbortController; ledAt: number[]; terms: { start: number; end?: number }[] } {
  const client = new ReplicaClient(shared);
  const elector = new LeaderElector({
    namespace: NS,
    leaseName: NAME,
    client,
    identity,
    clock,
    wallClock: () => EPOCH + clock.now(),
    random,
    logger: silentLogger(),
  });
  const stop = new AbortController();
  stops.push(stop);
  const ledAt: number[] = [];
  const terms: { start: number; end?: number }[] = [];
  void elector
    .run(stop.signal, async (term) => {
      ledAt.push(clock.now());
      const t: { start: number; end?: number } = { start: clock.now() };
      terms.push(t);
      await new Promise<void>((resolve) => term.addEventListener('abort', () => resolve(), { once: true }));
      t.end = clock.now();
    })
    .catch(() => undefined);
  return { client, stop, ledAt, terms };
}

describe('LeaderElector watching its lease', () => {
  it('takes over a killed leader one lease duration after its last renewal as it happened, not as a poll saw it', async () => {
    const shared = new FakeLeaseClient();
    const a = replica(shared, 'a');
    await advance(0);
    expect(a.ledAt).toEqual([0]);
    const b = replica(shared, 'b');
    await advance(5_000);
    // a renews at 2, 4, 6 s; it is killed at 6.5 s, right after its last renewal.
    await advance(1_500);
    a.client.dead = true;
    const lastRenewal = Date.parse(shared.read(NS, NAME)!.spec!.renewTime!) - EPOCH;
    expect(lastRenewal).toBe(6_000);
    await advance(20_000);
    // The watch delivered the 6 s renewal at 6 s: b takes over at 21 s exactly (a poll would have seen it up to a
    // jittered retry period later).
    expect(b.ledAt).toEqual([lastRenewal + 15_000]);
    expect(shared.read(NS, NAME)!.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    // While the watch is open the candidate does not poll between the renewals it sees.
    expect(shared.calls.filter((c) => c.verb === 'get').length).toBeLessThanOrEqual(4);
  });

  it('sees a release at once and takes the lease without waiting for a retry period', async () => {
    const shared = new FakeLeaseClient();
    const a = replica(shared, 'a');
    await advance(0);
    const b = replica(shared, 'b');
    await advance(3_000);
    const releasedAt = clock.now() + 10;
    await advance(10);
    a.stop.abort(); // a's work ends at once; it releases the lease
    await advance(50);
    expect(shared.read(NS, NAME)!.spec?.holderIdentity).toBe('b');
    expect(b.ledAt).toHaveLength(1);
    expect(b.ledAt[0]! - releasedAt).toBeLessThan(100);
  });

  it('falls back to polling every jittered retry period while the watch fails, and watches again once it works', async () => {
    const shared = new FakeLeaseClient();
    shared.watchFailing = true;
    const a = replica(shared, 'a');
    await advance(0);
    const b = replica(shared, 'b');
    const gets = (): number => shared.calls.filter((c) => c.verb === 'get' && c.ok).length;
    await advance(100);
    const before = gets();
    await advance(8_000);
    // random 0.5, jitter 1.2: a try every 3.2 s.
    expect(gets() - before).toBe(2);
    shared.watchFailing = false;
    // Failed opens back off (2, 4, 8 s ... up to a lease duration): both are watching again by the next try.
    await advance(8_000);
    expect(shared.watchCount()).toBe(2);
    // A watch that breaks is opened again; a release is then seen at once.
    shared.breakWatches();
    await advance(2_100);
    expect(shared.watchCount()).toBe(2);
    a.stop.abort();
    await advance(50);
    expect(shared.read(NS, NAME)!.spec?.holderIdentity).toBe('b');
    expect(b.ledAt).toHaveLength(1);
  });

  for (const seed of [1, 2, 3]) {
    it(`never has two terms open at once with watches under random partitions and heals (seed ${seed})`, async () => {
      const random = new Random(seed);
      const shared = new FakeLeaseClient();
      const replicas = ['a', 'b', 'c'].map((id) => replica(shared, id, () => random.next()));
      for (let event = 0; event < 12; event++) {
        await advance(1_000 + random.int(20_000));
        const r = random.pick(replicas);
        r.client.dead = !r.client.dead; // partition or heal
      }
      for (const r of replicas) r.client.dead = false;
      await advance(20_000);
      const intervals = replicas
        .flatMap((r) => r.terms.map((t) => [t.start, t.end ?? Number.POSITIVE_INFINITY] as const))
        .sort((x, y) => x[0] - y[0]);
      expect(intervals.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < intervals.length; i++) expect(intervals[i]![0]).toBeGreaterThan(intervals[i - 1]![1]);
      expect(replicas.filter((r) => r.terms.length > 0 && r.terms.at(-1)!.end === undefined).length).toBe(1);
    });
  }
});
