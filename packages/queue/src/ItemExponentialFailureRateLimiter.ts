import type { RateLimiter } from '@protean/core';
import { checkBackoff } from './checks.js';
import type { KeyFunc } from './KeyFunc.js';
import { QueueArgumentError } from './QueueArgumentError.js';

const WHERE = 'ItemExponentialFailureRateLimiter';

/**
 * Per-item exponential backoff: the n-th `when` for an item (counting from
 * 0) returns `baseDelayMs * 2^n`, capped at `maxDelayMs`; `forget` resets
 * the item. Sequence for 5..1000 ms: 5, 10, 20, 40, ..., 640, 1000, 1000.
 *
 * Easy to get wrong: failures are counted per key. Primitive items (strings,
 * numbers) are their own key; object items need the `key` argument (the
 * queue's key function), or `when` throws rather than share one counter.
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<unknown, number>();
  private readonly keyOf: (item: T) => unknown;

  /**
   * @param baseDelayMs - delay of the first failure, finite and >= 0
   * @param maxDelayMs - cap, finite and >= `baseDelayMs`
   * @param key - identity of object items
   * @throws QueueArgumentError naming the first bad delay
   */
  constructor(
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
    key?: KeyFunc<T>,
  ) {
    // Delays that were checked where they entered (controllerRateLimiter's limits) are not checked again.
    if (new.target !== CheckedItemExponentialFailureRateLimiter) checkBackoff(WHERE, 'baseDelayMs', baseDelayMs, 'maxDelayMs', maxDelayMs);
    this.keyOf = key ?? primitiveKey;
  }

  when(item: T): number {
    const key = this.keyOf(item);
    const exponent = this.failures.get(key) ?? 0;
    this.failures.set(key, exponent + 1);
    if (this.baseDelayMs === 0) return 0;
    // 2 ** exponent reaches Infinity past 1023; base > 0 keeps the product
    // Infinity (never NaN), which the cap turns into maxDelayMs.
    const backoffMs = this.baseDelayMs * 2 ** exponent;
    return backoffMs > this.maxDelayMs ? this.maxDelayMs : backoffMs;
  }

  forget(item: T): void {
    this.failures.delete(this.keyOf(item));
  }

  numRequeues(item: T): number {
    return this.failures.get(this.keyOf(item)) ?? 0;
  }
}

/**
 * An {@link ItemExponentialFailureRateLimiter} built from delays already
 * checked where they entered: `controllerRateLimiter` builds it from limits
 * it checked, or that core's `resolveConfig` checked. Its constructor checks
 * nothing again. Internal to the package (not exported from its index), so a
 * limiter a caller builds is always checked.
 */
export class CheckedItemExponentialFailureRateLimiter<T> extends ItemExponentialFailureRateLimiter<T> {}

function primitiveKey(item: unknown): unknown {
  if ((typeof item === 'object' && item !== null) || typeof item === 'function') {
    throw new QueueArgumentError(
      `${WHERE}.when`,
      'item',
      item,
      'object items need a key function (pass the queue key as the third constructor argument)',
    );
  }
  return item;
}
