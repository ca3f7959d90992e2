/** What a {@link QueueStore} holds: one queued item and its key. */
export interface QueuedItem<T> {
  readonly key: string;
  readonly item: T;
}

/**
 * Where a work queue keeps its queued items, and so the order in which
 * `get()` hands them out. The default is a single FIFO; a
 * {@link RoundRobinQueueStore} serves groups of items in turn. The queue
 * keeps its dirty and processing bookkeeping itself: a store only orders
 * entries, and sees each key at most once at a time.
 *
 * Easy to get wrong: `shift` must return the very objects `push` received
 * (the queue keeps its own state on them), each exactly once, and neither
 * method may throw, or the queue's bookkeeping and the store disagree.
 */
export interface QueueStore<E> {
  /** Number of stored entries: what the queue's `len()` reports. */
  readonly size: number;
  push(entry: E): void;
  /** Removes and returns the next entry to hand out, or `undefined` when empty. */
  shift(): E | undefined;
}

/**
 * Builds the store of one queue; called once, by the queue's constructor.
 * A factory rather than an instance so that two queues never share a store.
 */
export type QueueStoreFactory<T> = () => QueueStore<QueuedItem<T>>;
