import {
  assertStillValid,
  ObjectNotCachedError,
  RequeueWhen,
  silentLogger,
  type GroupVersionResource,
  type Handler,
  type ReconcileContext,
} from '@protean/core';
import { FakeClock, flushMicrotasks, FreezableClock, NoopInstanceWatcher, type Random } from '@protean/core/testing';
import { applyShardChange } from './applyShardChange.js';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges } from './HashRange.js';
import { FakeMemberLeaseClient } from './MemberLeaseClient.js';
import { ReplicaClient } from './ReplicaClient.testkit.js';
import { rangeFraction, unionRanges } from './rangeSet.js';
import { ShardGate } from './ShardGate.js';
import { ShardMembership } from './ShardMembership.js';

// The simulated cluster of the shard simulations (ShardHandoff, ShardFreeze and ShardJoin .sim.test.ts).

// client-go's timings, on a fake clock.
export const LEASE_MS = 15_000;
export const RENEW_DEADLINE_MS = 10_000;
export const RETRY_MS = 2_000;
export const TICK_MS = 10;
export const GVR: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
export const KEYS = Array.from({ length: 60 }, (_, i) => `team-${i}`);

export interface Pass {
  readonly key: string;
  readonly replica: string;
  readonly start: number;
  end?: number;
  /** Whether the member's lease was valid (`status().renewing`) when the pass started. */
  readonly startValid: boolean;
  /** When the pass wrote its result (at its end, unless its signal aborted or `assertStillValid` refused). */
  wrote?: number;
  /** Whether the member's lease was valid when the pass wrote. */
  wroteValid?: boolean;
}

export interface Replica {
  readonly id: string;
  /** The process's clock: frozen with the process. */
  readonly clock: FreezableClock;
  readonly client: ReplicaClient;
  readonly membership: ShardMembership;
  readonly gate: ShardGate;
  readonly stop: AbortController;
  readonly running: Promise<void>;
  readonly inFlight: Map<string, Pass>;
  /** Pending handler timers, cleared when the process dies. */
  readonly timers: Set<() => void>;
  /** Answers that reached the process while it was frozen: on waking they run first, before any timer. */
  readonly io: (() => void)[];
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
export class Cluster {
  readonly clock = new FakeClock(0);
  readonly store = new FakeMemberLeaseClient();
  readonly replicas: Replica[] = [];
  readonly passes: Pass[] = [];
  /** When each replica was frozen (`to` is Infinity while it still is). */
  readonly frozenSpans: { readonly replica: string; readonly from: number; to: number }[] = [];
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
    const clock = new FreezableClock(this.clock);
    const membership = new ShardMembership({
      client,
      namespace: 'ctl',
      group: 'webapp',
      identity: id,
      keys: () => this.keys,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: RENEW_DEADLINE_MS,
      retryPeriodMs: RETRY_MS,
      clock,
      wallClock: () => Date.UTC(2026, 11, 1) + this.clock.now(),
      logger: silentLogger(),
    });
    const gate = new ShardGate({ key: 'namespace', validity: membership.validity });
    const stop = new AbortController();
    const replica: Replica = {
      id,
      clock,
      client,
      membership,
      gate,
      stop,
      running: membership.run(stop.signal, applyShardChange({ gate })),
      inFlight: new Map(),
      timers: new Set(),
      io: [],
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
    r.io.length = 0;
    for (const pass of r.inFlight.values()) pass.end = this.clock.now();
    r.inFlight.clear();
    for (const cancel of r.timers) cancel();
    r.timers.clear();
  }

  /** SIGSTOP: the replica's timers, requests and watch events wait; its monotonic clock keeps running. */
  freeze(r: Replica): void {
    r.clock.freeze();
    r.client.freeze();
    this.frozenSpans.push({ replica: r.id, from: this.clock.now(), to: Infinity });
  }

  /** SIGCONT: what fell due meanwhile runs, answers and watch events first, then overdue timers in due order. */
  thaw(r: Replica): void {
    for (const span of this.frozenSpans) if (span.replica === r.id && span.to === Infinity) span.to = this.clock.now();
    for (const answer of r.io.splice(0)) answer();
    r.client.thaw();
    r.clock.thaw();
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
      if (this.clock.now() % 50 === 0) for (const r of this.replicas) if (r.alive && !r.stopping && !r.clock.frozen) this.work(r);
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
    // A pass its process was frozen in cannot be stopped by anyone: what it may still do is audited by actingOverlaps.
    const frozenIn = (p: Pass): boolean =>
      this.frozenSpans.some((s) => s.replica === p.replica && s.from < (p.end ?? Infinity) && s.to > p.start);
    for (const p of this.passes) if (!frozenIn(p)) (byKey.get(p.key) ?? byKey.set(p.key, []).get(p.key)!).push(p);
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

  /** Passes that started, or wrote, while their member's lease was no longer valid. */
  outsideValidity(): string[] {
    return this.passes
      .filter((p) => !p.startValid || (p.wrote !== undefined && p.wroteValid === false))
      .map(
        (p) =>
          `${p.key} by ${p.replica}: started at ${p.start}${p.startValid ? '' : ' (invalid)'}, wrote at ${p.wrote ?? '-'}${p.wroteValid === false ? ' (invalid)' : ''}`,
      );
  }

  /**
   * Passes of one key by two replicas where one acted (started, or wrote)
   * while the other's pass was between its start (its read) and its write:
   * what a freeze can cause without overlapping writes, a stale overwrite.
   */
  actingOverlaps(): string[] {
    const byKey = new Map<string, Pass[]>();
    for (const p of this.passes) (byKey.get(p.key) ?? byKey.set(p.key, []).get(p.key)!).push(p);
    const found: string[] = [];
    for (const [key, list] of byKey) {
      for (const a of list) {
        if (a.wrote === undefined) continue;
        for (const b of list) {
          if (b.replica === a.replica) continue;
          const acts = [b.start, ...(b.wrote === undefined ? [] : [b.wrote])];
          if (acts.some((t) => t > a.start && t < a.wrote!))
            found.push(`${key}: ${a.replica} read at ${a.start} and wrote at ${a.wrote}; ${b.replica} acted at ${acts.join(', ')}`);
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
        get: (gvr) => Promise.reject(new ObjectNotCachedError(gvr)),
        list: (gvr) => Promise.reject(new ObjectNotCachedError(gvr)),
      };
      r.inFlight.set(key, { key, replica: r.id, start: -1, startValid: true }); // reserved until the gate runs the handler
      void wrapped({ namespace: key, name: 'app' }, ctx)
        .catch((err: unknown) => {
          // Refused past the lease (RequeueWhen): this worker takes the key again on a later tick, as the queue would.
          if (!(err instanceof RequeueWhen)) throw err;
        })
        .finally(() => {
          const pass = r.inFlight.get(key);
          if (pass !== undefined && pass.start === -1) r.inFlight.delete(key);
        });
    }
  }

  /**
   * One pass: it reads, and the answer comes back after up to `maxPassMs`
   * (on the server's time: it arrives even while the process is frozen,
   * and then runs first when it wakes); it then writes at once unless its
   * signal aborted or `assertStillValid` refuses. After an abort the
   * handler returns within `abortLatencyMs` (on the process's clock).
   */
  private pass(r: Replica, key: string, ctx: ReconcileContext): Promise<void> {
    const pass: Pass = { key, replica: r.id, start: r.clock.now(), startValid: r.membership.status().renewing };
    this.passes.push(pass);
    r.inFlight.set(key, pass);
    const duration = 1 + this.random.int(this.opts.maxPassMs);
    return new Promise<void>((resolve) => {
      let answer: ReturnType<FakeClock['setTimeout']> | undefined;
      let latency: ReturnType<FakeClock['setTimeout']> | undefined;
      let settled = false;
      const clear = (): void => {
        if (answer !== undefined) this.clock.clearTimeout(answer);
        if (latency !== undefined) r.clock.clearTimeout(latency);
      };
      const finish = (): void => {
        if (settled) return;
        settled = true;
        clear();
        r.timers.delete(cancel);
        if (r.alive) {
          pass.end = r.clock.now();
          r.inFlight.delete(key);
        }
        resolve();
      };
      // The handler's write: refused (not sent) once the lease the pass runs under ended, as @protean/client does.
      const write = (): void => {
        try {
          assertStillValid(ctx, `a write of ${key}`);
        } catch {
          return;
        }
        pass.wrote = r.clock.now();
        pass.wroteValid = r.membership.status().renewing;
      };
      const cancel = (): void => {
        settled = true;
        clear();
        resolve();
      };
      r.timers.add(cancel);
      answer = this.clock.setTimeout(() => {
        answer = undefined;
        const continuation = (): void => {
          if (settled || !r.alive) return;
          if (!ctx.signal.aborted) write();
          finish();
        };
        if (r.clock.frozen) r.io.push(continuation);
        else continuation();
      }, duration);
      ctx.signal.addEventListener(
        'abort',
        () => {
          if (answer !== undefined) this.clock.clearTimeout(answer);
          answer = undefined;
          latency = r.clock.setTimeout(finish, this.random.int(this.opts.abortLatencyMs + 1));
        },
        { once: true },
      );
    });
  }
}

/** Which live replicas reconcile `key` now. */
export function ownerOfKey(cluster: Cluster, key: string): string[] {
  return cluster
    .live()
    .filter((r) => inRanges(fnv1a64(key), r.membership.ranges()))
    .map((r) => r.id);
}
