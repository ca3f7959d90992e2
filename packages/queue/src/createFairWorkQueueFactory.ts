import type { RateLimitingQueue, WorkQueueFactory, WorkQueueOptions } from '@protean/core';
import type { WorkQueueFactoryDeps } from './queueOptionsBuilder.js';
import { FairRateLimitingQueue } from './FairRateLimitingQueue.js';
import { gvrGroup } from './gvrGroup.js';
import { queueOptionsBuilder } from './queueOptionsBuilder.js';
import type { GroupFunc } from './RoundRobinQueueStore.js';

/** What every queue built by {@link createFairWorkQueueFactory} shares. */
export interface FairWorkQueueFactoryDeps extends WorkQueueFactoryDeps {
  /**
   * The group of an item for queues whose options name none; default
   * {@link gvrGroup} (the item's `gvr`, else `''`). It receives items of
   * every queue the factory builds, so it must accept `unknown`.
   */
  readonly group?: GroupFunc<unknown>;
}

/**
 * Core's `WorkQueueOptions` plus a per-queue group function. Core's options
 * type has no `group` field, so a caller that wants its own groups passes an
 * object of this wider type to the factory; the fair factory reads `group`
 * at run time and every other factory ignores it.
 */
export interface FairWorkQueueOptions<T> extends WorkQueueOptions<T> {
  readonly group?: GroupFunc<T>;
}

/**
 * Builds core's {@link WorkQueueFactory} for {@link FairRateLimitingQueue}s,
 * without a container. Limiters, clock and metrics are chosen exactly as by
 * {@link createWorkQueueFactory}; the group is `options.group` when the
 * options carry one (see {@link FairWorkQueueOptions}), else `deps.group`,
 * else {@link gvrGroup}, which groups the DynamicController's items by
 * parent GVR.
 *
 * Easy to get wrong: with the default group, items that have no `gvr` all
 * land in one group, and the queue is then plain FIFO.
 * @throws TypeError when `deps.group` is given but is not a function.
 */
export function createFairWorkQueueFactory(deps: FairWorkQueueFactoryDeps = {}): WorkQueueFactory {
  const where = 'createFairWorkQueueFactory';
  const queueOptions = queueOptionsBuilder(where, deps);
  const defaultGroup = deps.group ?? gvrGroup;
  if (typeof defaultGroup !== 'function') {
    throw new TypeError(`${where}: deps.group must be a function, got ${typeof defaultGroup}`);
  }
  return <T>(options: WorkQueueOptions<T>): RateLimitingQueue<T> => {
    const own = (options as FairWorkQueueOptions<T>).group;
    if (own !== undefined && typeof own !== 'function') {
      throw new TypeError(`${where}: options.group of queue ${JSON.stringify(options.name)} must be a function, got ${typeof own}`);
    }
    return new FairRateLimitingQueue<T>({ ...queueOptions(options), group: own ?? defaultGroup });
  };
}
