import type { DelayingQueue } from './DelayingQueue.js';

/** client-go `RateLimitingInterface`. */
export interface RateLimitingQueue<T> extends DelayingQueue<T> {
  addRateLimited(item: T): void;
  forget(item: T): void;
  numRequeues(item: T): number;
}
