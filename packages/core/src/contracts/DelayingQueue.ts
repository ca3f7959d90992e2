import type { EnqueueSource, WorkQueue } from './WorkQueue.js';

/** client-go `DelayingInterface`. */
export interface DelayingQueue<T> extends WorkQueue<T> {
  /**
   * `delayMs <= 0` adds now; a pending item re-added keeps the earlier ready
   * time. `source` is passed on to the `add` made when the delay ends.
   */
  addAfter(item: T, delayMs: number, source?: EnqueueSource): void;
  /**
   * Optional: when `item`, delayed by `addAfter` or `addRateLimited`, joins
   * the queue (`clock.now()` of the queue's clock); undefined when it is not
   * waiting. The controller reports it as a failed item's next retry.
   */
  readyAt?(item: T): number | undefined;
}
