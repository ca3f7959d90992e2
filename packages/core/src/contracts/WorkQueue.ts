/** Result of {@link WorkQueue.get}. */
export type QueueGetResult<T> = { readonly item: T; readonly shutdown: false } | { readonly shutdown: true };

/**
 * Why an item is added to a work queue: `'live'` for a change seen on an
 * informer's watch stream (or a child event routed to its parent),
 * `'initial-list'` for an informer's initial list (or a parent kind's
 * cached instances replayed at registration), `'resync'` for a periodic
 * resync replay, `'takeover'` for every cached instance enqueued when a
 * leadership term begins, `'requeue'` for a handler asking to run again
 * (`RequeueNeeded`, `RequeueNeededAfter`), `'retry'` for a failed pass
 * retried with backoff. A queue that orders by it (`@protean/queue`'s
 * priority queue) serves some sources first; every other queue ignores it.
 * Omitted, an add counts as `'live'`.
 */
export type EnqueueSource = 'live' | 'initial-list' | 'resync' | 'takeover' | 'requeue' | 'retry';

/**
 * client-go `workqueue.Interface`: FIFO with a dirty set and a processing
 * set. An item added while queued collapses; an item added while processing
 * is queued again exactly once on `done`, so no two workers hold one key.
 */
export interface WorkQueue<T> {
  /** `source` (optional, default `'live'`) says why; queues that do not order by it ignore it. */
  add(item: T, source?: EnqueueSource): void;
  /** Queued items only (not those being processed). */
  len(): number;
  get(): Promise<QueueGetResult<T>>;
  done(item: T): void;
  /** Stops accepting adds; queued items are still handed out. */
  shutdown(): void;
  /** Like `shutdown`, then waits until every handed-out item is done. */
  shutdownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
  /**
   * Optional: queued items per priority, for a queue that orders by priority
   * (`@protean/queue`'s priority queue: `{ high, normal, low }`); they add up
   * to `len()`. The controller's status reports it beside the depth.
   */
  depthByPriority?(): Readonly<Record<string, number>>;
}
