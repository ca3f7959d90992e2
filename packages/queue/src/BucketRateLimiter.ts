import { realClock, type Clock, type RateLimiter } from '@protean/core';
import { checkBucket } from './checks.js';

const WHERE = 'BucketRateLimiter';

/**
 * An overall token bucket (client-go's `BucketRateLimiter` over
 * `x/time/rate`): it starts full with `burst` tokens and refills at `qps`
 * per second up to `burst`. Every `when` takes a token, going into debt when
 * none is left, and returns how long that caller must wait; later callers
 * queue behind it. With qps 10 and burst 100: 100 zeros, then 100, 200, ...
 *
 * Easy to get wrong: it is not per item. `forget` does nothing and
 * `numRequeues` is always 0; combine it with a per-item limiter in a
 * {@link MaxOfRateLimiter}. `qps = Infinity` lets everything through.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private lastMs: number;

  /**
   * @param qps - refill rate in tokens per second, > 0
   * @param burst - bucket size, an integer >= 1
   * @param clock - time source; defaults to core's `realClock`
   * @throws QueueArgumentError naming the first bad argument
   */
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    // A rate and burst that were checked where they entered (controllerRateLimiter's limits) are not checked again.
    if (new.target !== CheckedBucketRateLimiter) checkBucket(WHERE, 'qps', qps, 'burst', burst);
    this.tokens = burst;
    this.lastMs = clock.now();
  }

  when(_item: T): number {
    if (this.qps === Infinity) return 0;
    const now = this.clock.now();
    // A clock that went backwards refills nothing rather than draining.
    const elapsedMs = now > this.lastMs ? now - this.lastMs : 0;
    this.lastMs = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsedMs * this.qps) / 1000);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/**
 * A {@link BucketRateLimiter} built from a rate and burst already checked
 * where they entered: `controllerRateLimiter` builds it from limits it
 * checked, or that core's `resolveConfig` checked. Its constructor checks
 * nothing again. Internal to the package (not exported from its index), so a
 * limiter a caller builds is always checked.
 */
export class CheckedBucketRateLimiter<T> extends BucketRateLimiter<T> {}
