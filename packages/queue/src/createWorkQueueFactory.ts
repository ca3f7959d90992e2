import type { Clock, QueueMetricsProvider, RateLimitingQueue, WorkQueueFactory, WorkQueueOptions } from '@protean/core';
import { queueOptionsBuilder } from './queueOptionsBuilder.js';
import { RateLimitingWorkQueue } from './RateLimitingWorkQueue.js';

/** What every queue built by {@link createWorkQueueFactory} shares. */
export interface WorkQueueFactoryDeps {
  /** Defaults to core's `realClock`. */
  readonly clock?: Clock;
  /** Defaults to the no-op provider. */
  readonly metricsProvider?: QueueMetricsProvider;
  /** See {@link BasicWorkQueueOptions.unfinishedWorkUpdatePeriodMs}; default 0 (off). */
  readonly unfinishedWorkUpdatePeriodMs?: number;
}

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
