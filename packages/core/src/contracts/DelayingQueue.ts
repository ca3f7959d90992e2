import type { WorkQueue } from './WorkQueue.js';

/** client-go `DelayingInterface`. */
export interface DelayingQueue<T> extends WorkQueue<T> {
  /** `delayMs <= 0` adds now; a pending item re-added keeps the earlier ready time. */
  addAfter(item: T, delayMs: number): void;
}
