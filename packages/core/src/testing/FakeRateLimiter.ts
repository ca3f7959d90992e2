import type { RateLimiter } from '../index.js';

/** Options of a {@link FakeRateLimiter}. */
export interface FakeRateLimiterOptions {
  /** What `when` answers. Default 0. */
  readonly delayMs?: number;
  /** What `numRequeues` answers. Default 0. */
  readonly requeues?: number;
}

/**
 * A {@link RateLimiter} that answers what the test sets (`delayMs`,
 * `requeues`, both changeable at any time, for every item alike) and
 * records the items it was asked about and told to forget.
 * Easy to get wrong: it keeps no per-item state, so `forget` does not reset
 * `numRequeues`; set `requeues` yourself.
 */
export class FakeRateLimiter<T> implements RateLimiter<T> {
  delayMs: number;
  requeues: number;
  /** The items `when` was called with, in order. */
  readonly whenCalls: T[] = [];
  /** The items `forget` was called with, in order. */
  readonly forgotten: T[] = [];

  constructor(options: FakeRateLimiterOptions = {}) {
    this.delayMs = options.delayMs ?? 0;
    this.requeues = options.requeues ?? 0;
  }

  when(item: T): number {
    this.whenCalls.push(item);
    return this.delayMs;
  }

  forget(item: T): void {
    this.forgotten.push(item);
  }

  numRequeues(_item: T): number {
    return this.requeues;
  }
}
