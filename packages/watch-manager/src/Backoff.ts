import { realClock, type Clock } from '@protean/core';

/** Settings of a {@link Backoff}. Durations are milliseconds. */
export interface BackoffOptions {
  /** Base delay of the first retry. */
  readonly initialMs: number;
  /** Cap of the base delay. */
  readonly maxMs: number;
  /** Growth of the base delay per consecutive failure. Default 2. */
  readonly factor?: number;
  /**
   * Spread around the base delay, as a fraction: 0.2 gives delays in
   * [0.8 × base, 1.2 × base]. Default 0.2; 0 disables jitter.
   */
  readonly jitter?: number;
  /**
   * A failure more than this long after the end of the previous wait starts
   * again from `initialMs` (the caller was healthy in between). Default: never reset.
   */
  readonly resetAfterMs?: number;
  readonly clock?: Clock;
  /** Uniform random numbers in [0, 1); inject a fixed one in tests. */
  readonly random?: () => number;
}

/**
 * Exponential backoff with jitter, driven by an injectable {@link Clock}
 * (client-go's `ExponentialBackoffManager` shape). It only computes delays;
 * the caller waits them out on its own clock so it can abort the wait.
 *
 * Why not p-retry: p-retry owns the retry loop and sleeps on the global
 * `setTimeout`, so a test's fake clock cannot drive it, and the informer
 * needs per-failure decisions (relist or re-watch, Retry-After) that do not
 * fit a single retried function.
 *
 * Easy to get wrong: the reset is time-based, not success-based, so a
 * connection that flaps (connects, then fails at once) keeps backing off.
 */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private baseMs: number;
  /** When the wait handed out by the last failure ends: the healthy period is counted from there. */
  private lastWaitEndsAt: number | undefined;

  constructor(options: BackoffOptions) {
    const { initialMs, maxMs } = options;
    if (!(initialMs >= 0) || !(maxMs >= initialMs)) {
      throw new RangeError(`Backoff: need 0 <= initialMs <= maxMs, got initialMs=${initialMs} maxMs=${maxMs}`);
    }
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.factor = options.factor ?? 2;
    this.jitter = Math.min(Math.max(options.jitter ?? 0.2, 0), 1);
    this.resetAfterMs = options.resetAfterMs ?? Number.POSITIVE_INFINITY;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.baseMs = initialMs;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const now = this.clock.now();
    // Counted from the end of the last wait, not from the last failure: a wait
    // near `resetAfterMs` is not a healthy period, or a long cap would reset itself.
    if (this.lastWaitEndsAt !== undefined && now - this.lastWaitEndsAt >= this.resetAfterMs) {
      this.baseMs = this.initialMs;
    }
    const base = this.baseMs;
    this.baseMs = Math.min(this.maxMs, Math.max(base * this.factor, this.initialMs));
    const spread = this.jitter * (2 * this.random() - 1);
    const delayMs = Math.max(0, Math.round(base * (1 + spread)));
    this.lastWaitEndsAt = now + delayMs;
    return delayMs;
  }

  /** Forgets past failures: the next delay is `initialMs` again. */
  reset(): void {
    this.baseMs = this.initialMs;
    this.lastWaitEndsAt = undefined;
  }
}
