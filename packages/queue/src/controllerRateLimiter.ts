import { realClock, type Clock, type RateLimiter, type RateLimits } from '@protean/core';
import { wasChecked } from '@protean/core/internal';
import { CheckedBucketRateLimiter } from './BucketRateLimiter.js';
import { checkBackoff, checkBucket } from './checks.js';
import { CheckedItemExponentialFailureRateLimiter } from './ItemExponentialFailureRateLimiter.js';
import type { KeyFunc } from './KeyFunc.js';
import { MaxOfRateLimiter } from './MaxOfRateLimiter.js';

/**
 * The controller limiter shape built from core's {@link RateLimits}: the
 * larger of per-item exponential backoff (`minRetryDelayMs` doubling up to
 * `maxRetryDelayMs`) and an overall token bucket (`qps`, `burst`).
 * Pass `key` when items are objects (see {@link ItemExponentialFailureRateLimiter}).
 *
 * Easy to get wrong: `limits` are checked here, once, unless they were
 * checked where they entered (the DynamicController's, from core's
 * `resolveConfig`); the limiters built from them do not check them again.
 * @throws QueueArgumentError naming the first out-of-range field, as `limits.<field>`.
 */
export function controllerRateLimiter<T>(limits: RateLimits, clock: Clock = realClock, key?: KeyFunc<T>): RateLimiter<T> {
  if (!wasChecked(limits)) {
    // Checked here, where a caller's limits enter, so the error names the caller's field, not the inner limiter's parameter.
    const where = 'controllerRateLimiter';
    checkBackoff(where, 'limits.minRetryDelayMs', limits.minRetryDelayMs, 'limits.maxRetryDelayMs', limits.maxRetryDelayMs);
    checkBucket(where, 'limits.qps', limits.qps, 'limits.burst', limits.burst);
  }
  return new MaxOfRateLimiter<T>(
    new CheckedItemExponentialFailureRateLimiter<T>(limits.minRetryDelayMs, limits.maxRetryDelayMs, key),
    new CheckedBucketRateLimiter<T>(limits.qps, limits.burst, clock),
  );
}

/**
 * client-go's `DefaultControllerRateLimiter`: exponential backoff from 5 ms
 * to 1000 s per item, and 10 qps with a burst of 100 overall. Easy to get
 * wrong: Protean's controller `Config` defaults differ (200 ms minimum); the
 * controller passes its own limits, this is for standalone queues.
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock, key?: KeyFunc<T>): RateLimiter<T> {
  return controllerRateLimiter<T>({ minRetryDelayMs: 5, maxRetryDelayMs: 1000 * 1000, qps: 10, burst: 100 }, clock, key);
}
