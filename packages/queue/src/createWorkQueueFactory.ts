import type { RateLimitingQueue, WorkQueueFactory, WorkQueueOptions } from '@protean/core';
import { queueOptionsBuilder, type WorkQueueFactoryDeps } from './queueOptionsBuilder.js';

export type { WorkQueueFactoryDeps } from './queueOptionsBuilder.js';
import { RateLimitingWorkQueue } from './RateLimitingWorkQueue.js';

/**
 * Builds core's {@link WorkQueueFactory} without a container: each call
 * returns a {@link RateLimitingWorkQueue} using `options.rateLimiter`, else a
 * limiter built from `options.limits`, else
 * {@link defaultControllerRateLimiter}, all on the shared clock.
 * Easy to get wrong: `options.limits` is validated when a queue is built, so
 * bad limits throw from the factory call, not from here.
 */
export function createWorkQueueFactory(deps: WorkQueueFactoryDeps = {}): WorkQueueFactory {
  const queueOptions = queueOptionsBuilder('createWorkQueueFactory', deps);
  return <T>(options: WorkQueueOptions<T>): RateLimitingQueue<T> => new RateLimitingWorkQueue<T>(queueOptions(options));
}
