import { afterEach, describe, expect, it } from '@jest/globals';
import { Deferred, FakeClock, flushMicrotasks, LogRecorder } from '@protean/core/testing';
import { FakeLeaseClient } from './FakeLeaseClient.js';
import type { Lease } from './Lease.js';
import type { LeaseClient } from './LeaseClient.js';
import { LeaseRequestError } from './LeaseRequestError.js';
import { LeaderElector } from './LeaderElector.js';
import type { LeaderElectorOptions } from './LeaderElectorOptions.js';

const EPOCH = Date.parse('2026-12-01T10:00:00Z');
const NS = 'ns';
const NAME = 'ctl';

/** Micro time of `ms` after EPOCH. */
function at(ms: number): string {
  return new Date(EPOCH + ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** A lease client for one replica whose calls fail while `cut` is true (a network partition of that replica). */
class Partitioned implements LeaseClient {
  cut = false;
  constructor(private readonly inner: LeaseClient) {}
  get(namespace: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    return this.cut ? this.fail('get') : this.inner.get(namespace, name, signal);
  }
  create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.cut ? this.fail('create') : this.inner.create(lease, signal);
  }
  update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.cut ? this.fail('update') : this.inner.update(lease, signal);
  }
  private fail(verb: 'get' | 'create' | 'update'): Promise<never> {
    return Promise.reject(new LeaseRequestError(verb, `${NS}/${NAME}`, 'request failed: connect ECONNREFUSED', { reason: 'NetworkError' }));
  }
}

/** One replica: its elector, its run, and the terms it led (start and end on the fake clock). */
interface Replica {
  readonly elector: LeaderElector;
  readonly client: Partitioned;
  readonly abort: AbortController;
  readonly run: Promise<void>;
  readonly terms: { start: number; aborted?: number; end?: number; reason?: unknown; signal: AbortSignal }[];
  /** How the next term's work ends: by default when its term aborts. */
  work: (term: AbortSignal) => Promise<void>;
}

let clock = new FakeClock();
let logs = new LogRecorder('debug');
const replicas: Replica[] = [];
const holds: Deferred[] = [];

afterEach(async () => {
  for (const h of holds.splice(0)) if (!h.settled()) h.resolve();
  for (const r of replicas.splice(0)) r.abort.abort();
  await step(20_000);
  clock = new FakeClock();
  logs = new LogRecorder('debug');
});

function hold(): Deferred {
  const d = new Deferred();
  holds.push(d);
  return d;
}

function untilAborted(term: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (term.aborted) resolve();
    else term.addEventListener('abort', () => resolve(), { once: true });
  });
}

function start(shared: FakeLeaseClient, identity: string, options: Partial<LeaderElectorOptions> = {}): Replica {
  const client = new Partitioned(shared);
  const elector = new LeaderElector({
    namespace: NS,
    leaseName: NAME,
    client,
    identity,
    clock,
    wallClock: () => EPOCH + clock.now(),
    random: () => 0,
    logger: logs.logger,
    ...options,
  });
  const abort = new AbortController();
  const replica: Replica = {
    elector,
    client,
    abort,
    terms: [],
    work: untilAborted,
    run: Promise.resolve(),
  };
  (replica as { run: Promise<void> }).run = elector.run(abort.signal, async (term) => {
    const t: Replica['terms'][number] = { start: clock.now(), signal: term };
    replica.terms.push(t);
    term.addEventListener('abort', () => {
      t.aborted = clock.now();
      t.reason = term.reason;
    });
    try {
      await replica.work(term);
    } finally {
      t.end = clock.now();
    }
  });
  replica.run.catch(() => undefined);
  replicas.push(replica);
  return replica;
}

/** Advances the fake clock by `ms` in 50 ms steps, letting the electors' promise chains run between timers. */
async function step(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 50) await clock.advanceAsync(Math.min(50, left));
  await flushMicrotasks();
}

function lease(shared: FakeLeaseClient): Lease {
  const l = shared.read(NS, NAME);
  if (l === undefined) throw new Error('no lease');
  return l;
}

/** A lease another replica holds, renewed at `renewMs` after EPOCH. */
function heldBy(shared: FakeLeaseClient, holder: string, renewMs: number): void {
  const current = shared.read(NS, NAME);
  shared.write({
    metadata: { name: NAME, namespace: NS, ...(current === undefined ? {} : { resourceVersion: current.metadata.resourceVersion }) },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: at(0), renewTime: at(renewMs), leaseTransitions: 4 },
  });
}

describe('LeaderElector: acquiring and renewing', () => {
  it('creates a missing lease and leads: holder, 15 s, no transitions, MicroTime acquire and renew times', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    await step(0);
    expect(a.terms).toHaveLength(1);
    expect(a.elector.isLeader()).toBe(true);
    expect(lease(shared).spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-12-01T10:00:00.000000Z',
      renewTime: '2026-12-01T10:00:00.000000Z',
      leaseTransitions: 0,
    });
    expect(logs.find('acquired the lease; leading')).toHaveLength(1);
  });

  it('renews every retry period from the lease it wrote, keeping acquireTime and leaseTransitions', async () => {
    const shared = new FakeLeaseClient();
    start(shared, 'a');
    await step(0);
    const gets = shared.succeeded('get');
    await step(2_000);
    expect(lease(shared).spec).toMatchObject({ renewTime: at(2_000), acquireTime: at(0), leaseTransitions: 0 });
    await step(4_000);
    expect(lease(shared).spec).toMatchObject({ renewTime: at(6_000), acquireTime: at(0), leaseTransitions: 0 });
    expect(shared.succeeded('update')).toBe(3);
    // The leader writes from its cached lease: no read per renewal.
    expect(shared.succeeded('get')).toBe(gets);
  });

  it('leaves a held lease alone until its record has not changed for the lease duration, then takes it with leaseTransitions + 1', async () => {
    const shared = new FakeLeaseClient();
    heldBy(shared, 'gone', 0);
    const b = start(shared, 'b');
    await step(14_950);
    expect(b.terms).toHaveLength(0);
    expect(b.elector.observedLeader()).toBe('gone');
    await step(100);
    expect(b.terms).toHaveLength(1);
    // Seen first at 0 (its first try); it tries again the moment the lease would expire, at 15 s.
    expect(b.terms[0]!.start).toBe(15_000);
    expect(lease(shared).spec).toMatchObject({ holderIdentity: 'b', acquireTime: at(15_000), renewTime: at(15_000), leaseTransitions: 5 });
  });

  it('never takes a lease whose holder keeps renewing it', async () => {
    const shared = new FakeLeaseClient();
    const b = start(shared, 'b');
    b.client.cut = true;
    heldBy(shared, 'alive', 0);
    b.client.cut = false;
    for (let t = 5_000; t <= 60_000; t += 5_000) {
      await step(5_000);
      heldBy(shared, 'alive', t);
    }
    expect(b.terms).toHaveLength(0);
    expect(lease(shared).spec?.holderIdentity).toBe('alive');
  });

  it('waits retryPeriodMs * (1 + random * jitter) between tries as a candidate', async () => {
    const shared = new FakeLeaseClient();
    heldBy(shared, 'other', 0);
    start(shared, 'b', { random: () => 0.5 });
    await step(0);
    expect(shared.succeeded('get')).toBe(1);
    await step(3_150);
    expect(shared.succeeded('get')).toBe(1);
    await step(100);
    expect(shared.succeeded('get')).toBe(2); // 2000 * (1 + 0.5 * 1.2) = 3200
  });
});

describe('LeaderElector: stepping down', () => {
  it('steps down at the renew deadline, before another replica can take the lease, and lets the work drain', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    const drained = hold();
    a.work = async (term) => {
      await untilAborted(term);
      await drained.promise;
    };
    await step(0);
    const b = start(shared, 'b');
    a.client.cut = true;
    await step(9_950);
    expect(a.terms[0]!.aborted).toBeUndefined();
    await step(100);
    expect(a.terms[0]!.aborted).toBe(10_000);
    expect(String(a.terms[0]!.reason)).toContain('could not renew the lease for renewDeadlineMs=10000');
    expect(a.elector.isLeader()).toBe(false);
    await step(2_000);
    drained.resolve();
    await step(0);
    expect(a.terms[0]!.end).toBe(12_050);
    expect(logs.find('stepped down: the work of the term has stopped')).toHaveLength(1);
    await step(6_000);
    // b saw a's last write (at 0) on its first try and may take over only 15 s after it.
    expect(b.terms).toHaveLength(1);
    expect(b.terms[0]!.start).toBe(15_000);
    expect(b.terms[0]!.start).toBeGreaterThan(a.terms[0]!.end!);
  });

  it('steps down at the renew deadline also when a renewal request hangs', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    await step(2_000);
    shared.hanging = true;
    await step(11_000);
    // The last renewal that went through was sent at 2 s.
    expect(a.terms[0]!.aborted).toBe(12_000);
    shared.hanging = false;
  });

  it('logs an error when the work of a lost term outlives the lease', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    const drained = hold();
    a.work = async (term) => {
      await untilAborted(term);
      await drained.promise;
    };
    await step(0);
    a.client.cut = true;
    await step(16_000);
    drained.resolve();
    await step(0);
    expect(logs.find('the work outlived the lease: another replica may have reconciled at the same time')).toHaveLength(1);
  });

  it('steps down at its next renewal when another holder took the lease', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    await step(1_000);
    heldBy(shared, 'intruder', 1_000);
    await step(1_000);
    expect(a.terms[0]!.aborted).toBe(2_000);
    expect(String(a.terms[0]!.reason)).toContain('the lease is now held by intruder');
    expect(lease(shared).spec?.holderIdentity).toBe('intruder');
  });

  it('goes back to standing by after a lost term and leads again when the lease is free', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    await step(0);
    a.client.cut = true;
    await step(10_000);
    expect(a.terms[0]!.end).toBe(10_000);
    a.client.cut = false;
    // Nobody else took it: the lease still names a, so a takes it back at its next try.
    await step(2_000);
    expect(a.terms).toHaveLength(2);
    expect(lease(shared).spec).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0 });
  });
});

describe('LeaderElector: graceful stop', () => {
  it('keeps renewing while the work drains, then releases the lease so a standby takes it at its next try', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    const drained = hold();
    a.work = async (term) => {
      await untilAborted(term);
      await drained.promise;
    };
    await step(0);
    const b = start(shared, 'b');
    await step(5_000);
    a.abort.abort();
    await step(0);
    expect(a.terms[0]!.aborted).toBe(5_000);
    await step(4_000);
    expect(lease(shared).spec).toMatchObject({ holderIdentity: 'a', renewTime: at(8_000) });
    drained.resolve();
    await step(0);
    await a.run;
    expect(lease(shared).spec).toEqual({ leaseDurationSeconds: 1, acquireTime: at(9_000), renewTime: at(9_000), leaseTransitions: 0 });
    expect(logs.find('released the lease')).toHaveLength(1);
    await step(2_000);
    expect(b.terms).toHaveLength(1);
    expect(b.terms[0]!.start).toBe(10_000);
    expect(lease(shared).spec).toMatchObject({ holderIdentity: 'b', leaseDurationSeconds: 15, leaseTransitions: 1 });
  });

  it('does not release when the work rejects, and rejects run with its error', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    a.work = async (term) => {
      await untilAborted(term);
      throw new Error('handlers did not drain');
    };
    await step(0);
    a.abort.abort();
    await expect(a.run).rejects.toThrow('handlers did not drain');
    expect(lease(shared).spec?.holderIdentity).toBe('a');
    expect(logs.find('not releasing the lease: the work did not drain; it expires on its own')).toHaveLength(1);
  });

  it('ends the run and releases the lease when the work returns while its term is open', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    a.work = () => Promise.resolve();
    await step(0);
    await a.run;
    expect(a.terms[0]!.reason).toEqual(new Error('the work of the term ended on its own'));
    expect(lease(shared).spec?.holderIdentity).toBeUndefined();
  });

  it('returns at once when stopped before it ever led', async () => {
    const shared = new FakeLeaseClient();
    heldBy(shared, 'other', 0);
    const b = start(shared, 'b');
    await step(1_000);
    b.abort.abort();
    await b.run;
    expect(b.terms).toHaveLength(0);
    expect(lease(shared).spec?.holderIdentity).toBe('other');
  });

  it('refuses a second run while one is going', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a');
    await expect(a.elector.run(new AbortController().signal, () => Promise.resolve())).rejects.toThrow('already running');
  });
});

describe('LeaderElector: two replicas', () => {
  it('never has two terms open at once across partitions, heals and stops', async () => {
    const shared = new FakeLeaseClient();
    const a = start(shared, 'a', { random: () => 0.3 });
    const b = start(shared, 'b', { random: () => 0.7 });
    await step(5_000);
    const first = a.terms.length === 1 ? a : b;
    const second = first === a ? b : a;
    first.client.cut = true;
    await step(30_000);
    first.client.cut = false;
    await step(10_000);
    second.abort.abort();
    await step(10_000);
    const intervals = [...a.terms, ...b.terms]
      .map((t) => [t.start, t.end ?? Number.POSITIVE_INFINITY] as const)
      .sort((x, y) => x[0] - y[0]);
    expect(intervals.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < intervals.length; i++) expect(intervals[i]![0]).toBeGreaterThan(intervals[i - 1]![1]);
    expect(first.elector.isLeader()).toBe(true);
    expect(lease(shared).spec?.leaseTransitions).toBe(2);
  });
});
