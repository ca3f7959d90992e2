import type { EnqueueSource } from '@protean/core';

/** What a {@link QueueStore} holds: one queued item, its key and why it was queued. */
export interface QueuedItem<T> {
  readonly key: string;
  readonly item: T;
  /**
   * The `source` of the add that queued the item (`undefined` when the
   * caller gave none). A store that orders by source may change it in
   * {@link QueueStore.addedAgain}; the queue sets it only when it pushes.
   */
  source: EnqueueSource | undefined;
}

/**
 * Where a work queue keeps its queued items, and so the order in which
 * `get()` hands them out. The default is a single FIFO; a
 * {@link RoundRobinQueueStore} serves groups of items in turn, a
 * {@link PriorityQueueStore} serves by source with a bound on every wait.
 * The queue keeps its dirty and processing bookkeeping itself: a store only
 * orders entries, and sees each key at most once at a time.
 *
 * Easy to get wrong: `shift` must return the very objects `push` received
 * (the queue keeps its own state on them), each exactly once, and no
 * method may throw, or the queue's bookkeeping and the store disagree.
 */
export interface QueueStore<E> {
  /** Number of stored entries: what the queue's `len()` reports. */
  readonly size: number;
  push(entry: E): void;
  /** Removes and returns the next entry to hand out, or `undefined` when empty. */
  shift(): E | undefined;
  /**
   * Optional: the key of `entry` was added again with `source`, either while
   * the entry is stored (`queued`: a duplicate add, which a FIFO leaves in
   * its place) or while it is being processed and already due to be pushed
   * again on `done` (`!queued`). A store that orders by source may update
   * `entry.source` and, when stored, move the entry. Stores without it keep
   * the first source.
   */
  addedAgain?(entry: E, source: EnqueueSource | undefined, queued: boolean): void;
}

/**
 * Builds the store of one queue; called once, by the queue's constructor.
 * A factory rather than an instance so that two queues never share a store.
 */
export type QueueStoreFactory<T> = () => QueueStore<QueuedItem<T>>;
