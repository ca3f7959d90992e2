import type { Clock } from '@protean/core';

/** One remembered sync failure of a GVR. */
export interface SyncFailureRecord {
  /** The failure later callers are rejected with (as `cause`). */
  readonly error: Error;
  /** HTTP status of the failure, when the server refused. */
  readonly status: number | undefined;
  /** Failures in a row; the window doubles with each. */
  readonly consecutive: number;
  /** Clock time at which a new attempt is allowed again. */
  readonly retryAtMs: number;
}

/** `failureBackoff.initialMs` when unset. */
export const DEFAULT_FAILURE_INITIAL_MS = 1000;
/** `failureBackoff.maxMs` when unset. */
export const DEFAULT_FAILURE_MAX_MS = 5 * 60 * 1000;

/**
 * Remembers, per GVR key, that its informer could not sync, and for how
 * long later callers should be turned away at once (1 s doubling to 5 min
 * by default). Easy to get wrong: the count of consecutive failures
 * survives the window closing; only {@link clear} (a successful sync) resets it.
 */
export class SyncFailureMemory {
  private readonly records = new Map<string, SyncFailureRecord>();

  /** `initialMs` and `maxMs` as checked where they entered (`checkInformerWatchManagerOptions`). */
  constructor(
    private readonly clock: Clock,
    private readonly initialMs = DEFAULT_FAILURE_INITIAL_MS,
    private readonly maxMs = DEFAULT_FAILURE_MAX_MS,
  ) {}

  /** Records a failure of `key`; returns the new record. */
  record(key: string, error: Error, status: number | undefined): SyncFailureRecord {
    const consecutive = (this.records.get(key)?.consecutive ?? 0) + 1;
    const windowMs = Math.min(this.maxMs, this.initialMs * 2 ** (consecutive - 1));
    const rec: SyncFailureRecord = { error, status, consecutive, retryAtMs: this.clock.now() + windowMs };
    this.records.set(key, rec);
    return rec;
  }

  /** The record of `key` while its window is open, else `undefined`. */
  active(key: string): SyncFailureRecord | undefined {
    const rec = this.records.get(key);
    return rec !== undefined && this.clock.now() < rec.retryAtMs ? rec : undefined;
  }

  /** Forgets every failure of `key` (it synced). */
  clear(key: string): void {
    this.records.delete(key);
  }
}
