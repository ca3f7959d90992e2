import type { Clock } from '../clock.js';
import { gvrKey, type ObjectIdentifiers } from '../gvr.js';
import { RECENT_FAILURES_LIMIT } from './ControllerStatus.js';
import type { PassCancelledError } from './PassCancelledError.js';
import type { PassTraceIds } from './PassTrace.js';
import { workItemKey } from './workItemKey.js';

/** A pass whose handler runs now, on the controller's clock. */
export interface PassStart {
  readonly item: ObjectIdentifiers;
  /** `clock.now()` when the pass started. */
  readonly startedAtMs: number;
  /** The pass's trace, while tracing is on. */
  readonly trace?: PassTraceIds | undefined;
}

/** An item's last failed pass, on the controller's clock. */
export interface FailureRecord {
  readonly item: ObjectIdentifiers;
  readonly atMs: number;
  readonly error: string;
  readonly reason: string | undefined;
  readonly failures: number;
  /** `clock.now()`-based time it is queued again, when known. */
  readonly nextRetryAtMs: number | undefined;
  readonly dropped: boolean;
  /** The failed pass's trace, while tracing is on. */
  readonly trace?: PassTraceIds | undefined;
}

/**
 * What the workers are doing, shared by the controller's worker pools (one
 * per leadership term): the passes running now and each item's last failed
 * pass (a bounded list, newest first). The controller's `status()` and the
 * stuck-workers liveness rule read it.
 *
 * Easy to get wrong: one key runs in at most one worker at a time (the
 * queue's rule), so a key is in `inFlight` once; a pool must call `end`
 * from a `finally`, or the pass looks stuck forever.
 */
export class WorkerActivity {
  private readonly running = new Map<string, PassStart>();
  /** How to cut off each running pass, by key. */
  private readonly cancels = new Map<string, (reason: PassCancelledError) => void>();
  /** Insertion order is failure order: the newest is last. */
  private readonly failed = new Map<string, FailureRecord>();
  /** Items with a failure count in the queue's rate limiter (retried with backoff, not forgotten since), by key. */
  private readonly backingOff = new Map<string, ObjectIdentifiers>();
  /** Items parked on an unavailable kind, by key: what ends each one's wait. */
  private readonly parked = new Map<string, AbortController>();

  constructor(
    private readonly clock: Clock,
    private readonly failureLimit = RECENT_FAILURES_LIMIT,
  ) {}

  /**
   * Parks `key` on a kind until its wait ends (`wait` resolves, or the
   * signal it is given aborts); false, starting nothing, when the key is
   * already parked: one wait per item.
   */
  park(key: string, wait: (signal: AbortSignal) => Promise<void>, then: () => void): boolean {
    if (this.parked.has(key)) return false;
    const abort = new AbortController();
    this.parked.set(key, abort);
    void wait(abort.signal).then(
      () => this.unpark(key, abort, then),
      () => this.unpark(key, abort, then),
    );
    return true;
  }

  /** Ends the waits of every parked item of `parent` (deregistered), or of all when `parent` is undefined (shutdown); nothing is requeued. */
  releaseParked(parent?: string): void {
    for (const [key, abort] of [...this.parked]) {
      if (parent !== undefined && !key.startsWith(`${parent}|`)) continue;
      this.parked.delete(key);
      abort.abort();
    }
  }

  /** Items parked on a kind now. */
  parkedCount(): number {
    return this.parked.size;
  }

  private unpark(key: string, abort: AbortController, then: () => void): void {
    if (this.parked.get(key) !== abort) return;
    this.parked.delete(key);
    if (!abort.signal.aborted) then();
  }

  begin(key: string, item: ObjectIdentifiers, trace?: PassTraceIds): void {
    this.running.set(key, trace === undefined ? { item, startedAtMs: this.clock.now() } : { item, startedAtMs: this.clock.now(), trace });
  }

  end(key: string): void {
    this.running.delete(key);
    this.cancels.delete(key);
  }

  /** How to cut off the running pass of `key` (its `ctx.signal` aborts with the reason); forgotten at `end`. */
  onCancel(key: string, cancel: (reason: PassCancelledError) => void): void {
    if (this.running.has(key)) this.cancels.set(key, cancel);
  }

  /** Cuts off the running pass of `key`, if any; true when there was one. */
  cancel(key: string, reason: PassCancelledError): boolean {
    const cancel = this.cancels.get(key);
    cancel?.(reason);
    return cancel !== undefined;
  }

  /** Cuts off every running pass of a parent GVR (by `gvrKey`). */
  cancelParent(parent: string, reason: PassCancelledError): void {
    for (const [key, cancel] of this.cancels) if (gvrKey(this.running.get(key)!.item.gvr) === parent) cancel(reason);
  }

  isInFlight(item: ObjectIdentifiers): boolean {
    return this.running.has(workItemKey(item));
  }

  inFlightKeys(): string[] {
    return [...this.running.keys()];
  }

  /** Running passes, oldest first. */
  inFlight(): PassStart[] {
    return [...this.running.values()].sort((a, b) => a.startedAtMs - b.startedAtMs);
  }

  /** Records a failed pass of `key`, replacing its previous failure. */
  recordFailure(key: string, record: Omit<FailureRecord, 'atMs'>): void {
    this.failed.delete(key);
    this.failed.set(key, { ...record, atMs: this.clock.now() });
    if (this.failed.size > this.failureLimit) this.failed.delete(this.failed.keys().next().value!);
  }

  /** A pass of `key` ended without an error: it is no longer failing. */
  clearFailure(key: string): void {
    this.failed.delete(key);
  }

  /** Each failing item's last failure, newest first. */
  recentFailures(): FailureRecord[] {
    return [...this.failed.values()].reverse();
  }

  /** `item` was re-added with backoff: the queue's rate limiter counts its failures until it is forgotten. */
  markBackingOff(key: string, item: ObjectIdentifiers): void {
    this.backingOff.set(key, item);
  }

  /** The queue forgot `key`'s failures. */
  clearBackingOff(key: string): void {
    this.backingOff.delete(key);
  }

  /** Removes and returns the items of a parent GVR whose failures the queue still counts. */
  takeBackingOff(parent: string): ObjectIdentifiers[] {
    const items: ObjectIdentifiers[] = [];
    for (const [key, item] of this.backingOff) {
      if (gvrKey(item.gvr) !== parent) continue;
      items.push(item);
      this.backingOff.delete(key);
    }
    return items;
  }

  /** Drops the failures of a parent GVR (deregistered). */
  forgetParent(parent: string): void {
    for (const [key, record] of this.failed) if (gvrKey(record.item.gvr) === parent) this.failed.delete(key);
  }
}
