import type { DelayingQueue } from './DelayingQueue.js';
import type { EnqueueSource } from './WorkQueue.js';

/** client-go `RateLimitingInterface`. */
export interface RateLimitingQueue<T> extends DelayingQueue<T> {
  /** `source` is passed on as by `addAfter`; omitted here, it counts as `'retry'`. */
  addRateLimited(item: T, source?: EnqueueSource): void;
  forget(item: T): void;
  numRequeues(item: T): number;
}
