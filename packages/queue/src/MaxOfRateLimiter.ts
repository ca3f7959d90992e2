import type { RateLimiter } from '@protean/core';
import { QueueArgumentError } from './QueueArgumentError.js';

/**
 * Combines limiters: `when` asks every one (each records the attempt) and
 * returns the longest delay; `forget` reaches all of them; `numRequeues` is
 * the largest count. Easy to get wrong: every limiter's `when` runs on every
 * call, so a token bucket inside spends a token even when another limiter's
 * delay is the one that wins.
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0) {
      throw new QueueArgumentError('MaxOfRateLimiter', 'limiters', limiters.length, 'needs at least one limiter');
    }
    this.limiters = limiters;
  }

  when(item: T): number {
    let longest = 0;
    for (const limiter of this.limiters) {
      const delayMs = limiter.when(item);
      // A NaN from one limiter must not vanish in the comparison.
      if (delayMs > longest || Number.isNaN(delayMs)) longest = delayMs;
    }
    return longest;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let most = 0;
    for (const limiter of this.limiters) most = Math.max(most, limiter.numRequeues(item));
    return most;
  }
}
