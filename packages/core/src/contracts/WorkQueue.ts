/** Result of {@link WorkQueue.get}. */
export type QueueGetResult<T> = { readonly item: T; readonly shutdown: false } | { readonly shutdown: true };

/**
 * client-go `workqueue.Interface`: FIFO with a dirty set and a processing
 * set. An item added while queued collapses; an item added while processing
 * is queued again exactly once on `done`, so no two workers hold one key.
 */
export interface WorkQueue<T> {
  add(item: T): void;
  /** Queued items only (not those being processed). */
  len(): number;
  get(): Promise<QueueGetResult<T>>;
  done(item: T): void;
  /** Stops accepting adds; queued items are still handed out. */
  shutdown(): void;
  /** Like `shutdown`, then waits until every handed-out item is done. */
  shutdownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
}
