import { realClock, type Clock, type RateLimiter, type RateLimits } from '@protean/core';
import { BucketRateLimiter } from './BucketRateLimiter.js';
import { checkNonNegative, checkPositive, checkPositiveInteger } from './checks.js';
import { ItemExponentialFailureRateLimiter } from './ItemExponentialFailureRateLimiter.js';
import type { KeyFunc } from './KeyFunc.js';
import { MaxOfRateLimiter } from './MaxOfRateLimiter.js';
import { QueueArgumentError } from './QueueArgumentError.js';

/**
 * The controller limiter shape built from core's {@link RateLimits}: the
 * larger of per-item exponential backoff (`minRetryDelayMs` doubling up to
 * `maxRetryDelayMs`) and an overall token bucket (`qps`, `burst`).
 * Pass `key` when items are objects (see {@link ItemExponentialFailureRateLimiter}).
 * @throws QueueArgumentError naming the first out-of-range field, as `limits.<field>`.
 */
export function controllerRateLimiter<T>(limits: RateLimits, clock: Clock = realClock, key?: KeyFunc<T>): RateLimiter<T> {
  // Checked here so the error names the caller's field, not the inner limiter's parameter.
  const where = 'controllerRateLimiter';
  checkNonNegative(where, 'limits.minRetryDelayMs', limits.minRetryDelayMs);
  checkNonNegative(where, 'limits.maxRetryDelayMs', limits.maxRetryDelayMs);
  if (limits.maxRetryDelayMs < limits.minRetryDelayMs) {
    throw new QueueArgumentError(
      where,
      'limits.maxRetryDelayMs',
      limits.maxRetryDelayMs,
      `must be >= limits.minRetryDelayMs (${limits.minRetryDelayMs})`,
    );
  }
  checkPositive(where, 'limits.qps', limits.qps);
  checkPositiveInteger(where, 'limits.burst', limits.burst);
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(limits.minRetryDelayMs, limits.maxRetryDelayMs, key),
    new BucketRateLimiter<T>(limits.qps, limits.burst, clock),
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
