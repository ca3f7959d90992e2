import type { RateLimitingQueue, WorkQueueFactory, WorkQueueOptions } from '@protean/core';
import { PriorityRateLimitingQueue } from './PriorityRateLimitingQueue.js';
import { queueOptionsBuilder, type WorkQueueFactoryDeps } from './queueOptionsBuilder.js';
import { checkMaxWait, sourceLevels, type SourcePriorities } from './sourcePriorities.js';

/** What every queue built by {@link createPriorityWorkQueueFactory} shares. */
export interface PriorityWorkQueueFactoryDeps extends WorkQueueFactoryDeps {
  /** See {@link PriorityQueueStoreOptions.maxWaitMs}; default 30,000. */
  readonly maxWaitMs?: number;
  /** Priority per enqueue source over {@link DEFAULT_SOURCE_PRIORITIES}. */
  readonly priorities?: SourcePriorities;
}

/**
 * Builds core's {@link WorkQueueFactory} for {@link PriorityRateLimitingQueue}s,
 * without a container. Limiters, clock and metrics are chosen exactly as by
 * {@link createWorkQueueFactory}.
 * @throws QueueArgumentError at once for a bad period, `maxWaitMs` or `priorities`.
 */
export function createPriorityWorkQueueFactory(deps: PriorityWorkQueueFactoryDeps = {}): WorkQueueFactory {
  const where = 'createPriorityWorkQueueFactory';
  const queueOptions = queueOptionsBuilder(where, deps);
  const { maxWaitMs, priorities } = deps;
  if (maxWaitMs !== undefined) checkMaxWait(where, maxWaitMs);
  sourceLevels(where, priorities);
  const own = {
    ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
    ...(priorities === undefined ? {} : { priorities }),
  };
  return <T>(options: WorkQueueOptions<T>): RateLimitingQueue<T> => new PriorityRateLimitingQueue<T>({ ...queueOptions(options), ...own });
}
