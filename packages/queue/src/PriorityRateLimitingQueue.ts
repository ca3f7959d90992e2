import { PriorityQueueStore, type PriorityQueueStoreOptions } from './PriorityQueueStore.js';
import { RateLimitingWorkQueue, type RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';
import { QUEUE_PRIORITIES, type QueuePriority } from './sourcePriorities.js';

/** Options of {@link PriorityRateLimitingQueue}. */
export interface PriorityRateLimitingQueueOptions<T>
  extends Omit<RateLimitingWorkQueueOptions<T>, 'store'>, Omit<PriorityQueueStoreOptions, 'clock'> {}

/**
 * A {@link RateLimitingWorkQueue} that hands out the most urgent item first
 * and bounds every wait (a {@link PriorityQueueStore} on the queue's clock):
 * a change seen live overtakes thousands of initial-list, resync or takeover
 * items, and an item that has waited `maxWaitMs` (default 30 s) goes before
 * every younger one, so no item starves under a steady stream of urgent ones.
 * The priority comes from the `source` argument of `add`, `addAfter` and
 * `addRateLimited`; an add without one counts as `'live'`.
 *
 * Everything else is exactly {@link RateLimitingWorkQueue}: duplicate adds
 * collapse (a more urgent one moves the queued item up), an item added while
 * processing is queued again once on `done` with the most urgent source it
 * got meanwhile, shutdown drains, `addAfter` keeps the earlier ready time,
 * and the limiter, metrics and `len()` (all priorities) behave the same.
 * Metered queues also report their depth per priority when the metrics
 * provider has `newDepthByPriorityMetric`.
 *
 * @throws QueueArgumentError for a bad `maxWaitMs` or `priorities`.
 */
export class PriorityRateLimitingQueue<T> extends RateLimitingWorkQueue<T> {
  private readonly lanes: PriorityQueueStore<T>;

  constructor(options: PriorityRateLimitingQueueOptions<T>) {
    // The store reads the same clock, maxWaitMs and priorities from the options.
    const lanes = new PriorityQueueStore<T>(options);
    super({ ...options, store: () => lanes });
    this.lanes = lanes;
    const provider = this.meteredBy;
    if (provider?.newDepthByPriorityMetric !== undefined) {
      lanes.reportDepthTo(QUEUE_PRIORITIES.map((priority) => provider.newDepthByPriorityMetric!(this.name, priority)));
    }
  }

  /** Number of queued items at `priority` (not counting delayed or processing ones). */
  priorityLen(priority: QueuePriority): number {
    return this.lanes.priorityLen(priority);
  }

  /** Queued items per priority, `{ high, normal, low }` (core's optional `WorkQueue.depthByPriority`). */
  depthByPriority(): Readonly<Record<QueuePriority, number>> {
    return { high: this.lanes.priorityLen('high'), normal: this.lanes.priorityLen('normal'), low: this.lanes.priorityLen('low') };
  }

  /** How long the oldest queued item has waited (ms, the queue's clock), 0 when none is queued. */
  oldestWaitMs(): number {
    return this.lanes.oldestWaitMs();
  }

  /** Items handed out ahead of more urgent ones because they had waited `maxWaitMs`. */
  agedCount(): number {
    return this.lanes.agedCount();
  }
}
