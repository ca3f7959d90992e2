import type { EnqueueSource } from '@protean/core';
import { QueueArgumentError } from './QueueArgumentError.js';
import { RateLimitingWorkQueue, type RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';
import { RoundRobinQueueStore, type GroupFunc } from './RoundRobinQueueStore.js';

// The last item whose group was checked, and that group.
interface CheckedGroup<T> {
  item: T | undefined;
  group: string;
}

/** Options of {@link FairRateLimitingQueue}. */
export interface FairRateLimitingQueueOptions<T> extends Omit<RateLimitingWorkQueueOptions<T>, 'store'> {
  /**
   * The group an item belongs to, e.g. `(item) => gvrKey(item.gvr)` for the
   * DynamicController's items (see {@link gvrGroup}). Groups take turns.
   */
  readonly group: GroupFunc<T>;
}

/**
 * A {@link RateLimitingWorkQueue} that is fair between groups of items:
 * `get()` serves the groups that have queued items in round-robin order,
 * oldest item first within each group, so one group with 10,000 queued
 * items cannot keep another group's item waiting behind all of them. Keyed
 * on the parent GVR, one busy parent resource type no longer starves the
 * others. An item whose group has nothing else queued is handed out within
 * (number of groups with queued items) calls to `get()`.
 *
 * Everything else is exactly {@link RateLimitingWorkQueue}: duplicate adds
 * collapse, an item added while processing is queued again once on `done`,
 * shutdown drains, `addAfter` keeps the earlier ready time, and the limiter,
 * metrics and `len()` (all queued items, every group) behave the same.
 *
 * Easy to get wrong: fairness applies to queued items only. Items waiting on
 * `addAfter`/`addRateLimited` join their group when their delay ends, and a
 * shared token-bucket limiter still delays every group's retries alike.
 * `group` must depend only on the item's identity (its key), as it is asked
 * again whenever the item is re-queued; its result is checked on every add.
 */
export class FairRateLimitingQueue<T> extends RateLimitingWorkQueue<T> {
  private readonly lanes: RoundRobinQueueStore<T>;
  private readonly groupOf: GroupFunc<T>;
  private readonly checked: CheckedGroup<T>;

  /** @throws TypeError when `options.group` (or `options.key`) is not a function. */
  constructor(options: FairRateLimitingQueueOptions<T>) {
    if (typeof options.group !== 'function') {
      throw new TypeError(`${new.target.name}: options.group must be a function, got ${typeof options.group}`);
    }
    const group = options.group;
    // Every add checks the group first and the store asks again for the very
    // same item straight after, so the store reuses the checked answer.
    const checked: CheckedGroup<T> = { item: undefined, group: '' };
    const lanes = new RoundRobinQueueStore<T>((item) => (item === checked.item ? checked.group : group(item)));
    super({ ...options, store: () => lanes });
    this.lanes = lanes;
    this.groupOf = group;
    this.checked = checked;
  }

  /**
   * As {@link RateLimitingWorkQueue.add}; the item queues at the back of its group.
   * @throws QueueArgumentError when `group(item)` is not a string (nothing is queued).
   */
  override add(item: T, source?: EnqueueSource): void {
    this.checkGroup('add', item);
    super.add(item, source);
  }

  /**
   * As {@link RateLimitingWorkQueue.addAfter}. The group is checked now, so a
   * bad item is rejected here rather than when its timer fires.
   * @throws QueueArgumentError when `group(item)` is not a string or `delayMs` is invalid.
   */
  override addAfter(item: T, delayMs: number, source?: EnqueueSource): void {
    this.checkGroup('addAfter', item);
    super.addAfter(item, delayMs, source);
  }

  /**
   * As {@link RateLimitingWorkQueue.addRateLimited}. The group is checked
   * before the limiter is asked, so a rejected item counts no failure.
   * @throws QueueArgumentError when `group(item)` is not a string or the limiter's delay is invalid.
   */
  override addRateLimited(item: T, source?: EnqueueSource): void {
    this.checkGroup('addRateLimited', item);
    super.addRateLimited(item, source);
  }

  /** Number of groups with queued items: the groups taking turns. */
  groupCount(): number {
    return this.lanes.groupCount();
  }

  /** Number of queued items of `group` (not counting delayed or processing ones). */
  groupLen(group: string): number {
    return this.lanes.groupLen(group);
  }

  /** The groups with queued items, in the order `get()` will next serve them. */
  groups(): string[] {
    return this.lanes.groups();
  }

  private checkGroup(method: string, item: T): void {
    const group = this.groupOf(item);
    if (typeof group !== 'string') {
      throw new QueueArgumentError(`${this.constructor.name}.${method}`, 'group(item)', group, 'the group function must return a string');
    }
    this.checked.item = item;
    this.checked.group = group;
  }
}
