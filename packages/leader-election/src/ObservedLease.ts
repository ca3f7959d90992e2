import type { Logger } from '@protean/core';
import type { Lease } from './Lease.js';
import { holderOf, leaseRecordKey } from './leaseRecords.js';

/**
 * The election lease as a candidate last read or wrote it, and when (clock
 * ms) its record last changed as this replica saw it: the basis of "has the
 * holder stopped renewing?" without trusting other nodes' clocks.
 */
export class ObservedLease {
  private observed: { readonly lease: Lease; readonly key: string; readonly at: number } | undefined;

  constructor(
    private readonly identity: string,
    /** Used when the lease names no duration of its own. */
    private readonly defaultDurationMs: number,
    private readonly log: Logger,
  ) {}

  /** The lease as last read or written; `undefined` before the first read or after it was deleted. */
  get lease(): Lease | undefined {
    return this.observed?.lease;
  }

  /** The holder it names (`''` when released); `undefined` before the first read. */
  holder(): string | undefined {
    return this.observed === undefined ? undefined : holderOf(this.observed.lease);
  }

  /** True when this replica holds it, as last observed. */
  isOurs(): boolean {
    return this.holder() === this.identity;
  }

  /** Records `lease` as the latest read or write at `at`; its record's time moves only when the record changed. */
  record(lease: Lease, at: number): void {
    const key = leaseRecordKey(lease);
    const previous = this.observed;
    const holder = holderOf(lease);
    if (previous === undefined || holderOf(previous.lease) !== holder) {
      this.log.info({ holder: holder === '' ? null : holder }, holder === '' ? 'the lease is free' : `the lease is held by ${holder}`);
    }
    this.observed = previous !== undefined && previous.key === key ? { ...previous, lease } : { lease, key, at };
  }

  /** The lease was deleted. */
  forget(): void {
    this.observed = undefined;
  }

  /** True when, as last observed, nobody holds the lease, it is gone, it is ours, or its holder's record has expired. */
  isFree(now: number): boolean {
    const holder = this.holder();
    return holder === undefined || holder === '' || holder === this.identity || this.isExpired(now);
  }

  /** True when the observed record has not changed for its lease duration. */
  isExpired(now: number): boolean {
    return this.expiresAt() <= now;
  }

  /** When (clock ms) the observed record expires unless it changes: its lease duration after this replica saw it change. */
  expiresAt(): number {
    const observed = this.observed;
    if (observed === undefined) return Number.NEGATIVE_INFINITY;
    const seconds = observed.lease.spec?.leaseDurationSeconds;
    const durationMs = typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : this.defaultDurationMs;
    return observed.at + durationMs;
  }
}
