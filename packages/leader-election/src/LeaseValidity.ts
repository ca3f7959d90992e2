import type { Clock, Validity } from '@protean/core';

/**
 * How long a lease held by this process may still be acted on: until the
 * start of its last successful renewal plus the renew deadline, on the
 * process's monotonic clock (which keeps running through a freeze, a VM
 * pause or a long GC). Other replicas count the lease out no earlier than
 * the lease duration after they saw that renewal, so work that stops at
 * the end of validity stops `leaseDurationMs - renewDeadlineMs` before
 * anyone else can start. Shared by `LeaderElector` (a leader term) and
 * `ShardMembership` (a member's ranges).
 *
 * Easy to get wrong: a renewal counts from when it was sent, not from
 * when its answer arrived (the server may have written it at any instant
 * in between), and only a renewal sent while still valid may extend it:
 * the holder checks {@link isValid} before sending one, and past the
 * deadline acquires again through its normal path instead.
 */
export class LeaseValidity implements Validity {
  private renewedAt: number | undefined;
  /** Waits of {@link whenValid}, ended by the next renewal that makes the lease valid. */
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly clock: Clock,
    /** How long after a renewal was sent the lease may be acted on. */
    readonly renewDeadlineMs: number,
    /** Names the lease in `LeaseExpiredError`s, e.g. `leadership of lease ctl/webapp`. */
    readonly description: string,
  ) {}

  /** A renewal (or the acquisition) sent at `sentAtMs` (clock ms) succeeded. Never moves validity backwards. */
  renewed(sentAtMs: number): void {
    if (this.renewedAt === undefined || sentAtMs > this.renewedAt) this.renewedAt = sentAtMs;
    if (this.waiters.size === 0 || !this.isValid()) return;
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiting) wake();
  }

  /** Resolves at once when valid, else at the next renewal that makes it valid, or when `signal` aborts. */
  whenValid(signal: AbortSignal): Promise<void> {
    if (this.isValid() || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }

  /** The lease was released or lost: not valid from now on, until the next {@link renewed}. */
  end(): void {
    this.renewedAt = undefined;
  }

  /** When (clock ms) the last successful renewal was sent; undefined when none since the last {@link end}. */
  renewedAtMs(): number | undefined {
    return this.renewedAt;
  }

  /** When (clock ms) validity ends; `-Infinity` when not held. */
  validUntilMs(): number {
    return this.renewedAt === undefined ? Number.NEGATIVE_INFINITY : this.renewedAt + this.renewDeadlineMs;
  }

  /** True while the lease may be acted on, read from the clock now. */
  isValid(nowMs: number = this.clock.now()): boolean {
    return nowMs < this.validUntilMs();
  }

  /** Milliseconds of validity left (0 or less when none). */
  remainingMs(nowMs: number = this.clock.now()): number {
    return this.validUntilMs() - nowMs;
  }
}
