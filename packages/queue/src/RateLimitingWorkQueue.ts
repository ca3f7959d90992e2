import type { EnqueueSource, RateLimiter, RateLimitingQueue } from '@protean/core';
import { defaultControllerRateLimiter } from './controllerRateLimiter.js';
import { DelayingWorkQueue, type DelayingWorkQueueOptions } from './DelayingWorkQueue.js';
import { QueueArgumentError } from './QueueArgumentError.js';

/** Options of {@link RateLimitingWorkQueue}. */
export interface RateLimitingWorkQueueOptions<T> extends DelayingWorkQueueOptions<T> {
  /**
   * Decides retry delays; defaults to {@link defaultControllerRateLimiter}
   * on the queue's clock and key.
   */
  readonly rateLimiter?: RateLimiter<T>;
}

/**
 * client-go's rate-limiting queue: a {@link DelayingWorkQueue} whose
 * `addRateLimited` waits as long as the rate limiter says.
 *
 * Easy to get wrong: call `forget` when an item succeeds (or is dropped), or
 * its backoff keeps growing on the next unrelated failure. `forget` only
 * resets the limiter; it does not remove the item from the queue.
 */
export class RateLimitingWorkQueue<T> extends DelayingWorkQueue<T> implements RateLimitingQueue<T> {
  readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingWorkQueueOptions<T>) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock, options.key);
  }

  /**
   * Adds `item` after `rateLimiter.when(item)`; a negative answer adds it now.
   * `source` (default `'retry'`) is passed on to {@link addAfter}.
   * @throws QueueArgumentError when the limiter returns `NaN` or `Infinity`.
   */
  addRateLimited(item: T, source: EnqueueSource = 'retry'): void {
    const delayMs = this.rateLimiter.when(item);
    if (typeof delayMs !== 'number' || Number.isNaN(delayMs) || delayMs === Infinity) {
      throw new QueueArgumentError(
        `${this.constructor.name}.addRateLimited`,
        'rateLimiter.when(item)',
        delayMs,
        'the rate limiter must return a finite number of milliseconds',
      );
    }
    this.addAfter(item, delayMs > 0 ? delayMs : 0, source);
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
