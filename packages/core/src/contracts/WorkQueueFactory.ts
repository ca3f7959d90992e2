import type { RateLimiter } from './RateLimiter.js';
import type { RateLimitingQueue } from './RateLimitingQueue.js';

/** Options the controller passes when it builds its queue. */
export interface WorkQueueOptions<T> {
  /** Identity of an item: two items with one key are the same item. */
  readonly key: (item: T) => string;
  /** Name for metrics and logs. */
  readonly name: string;
  /** Retry backoff and overall rate; the factory builds its limiter from them. */
  readonly limits?: RateLimits;
  /** A ready-made limiter; takes precedence over `limits`. */
  readonly rateLimiter?: RateLimiter<T>;
}

/**
 * The controller's rate limits: per-item exponential backoff from
 * `minRetryDelayMs` to `maxRetryDelayMs`, and a global token bucket of `qps`
 * with `burst` (client-go's default controller limiter shape).
 */
export interface RateLimits {
  readonly minRetryDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly qps: number;
  readonly burst: number;
}

/** Builds work queues; rebind its token to plug in another queue. */
export type WorkQueueFactory = <T>(options: WorkQueueOptions<T>) => RateLimitingQueue<T>;
