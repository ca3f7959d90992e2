import {
  noopQueueMetricsProvider,
  realClock,
  type Clock,
  type QueueMetricsProvider,
  type RateLimitingQueue,
  type WorkQueueFactory,
  type WorkQueueOptions,
} from '@protean/core';
import { checkNonNegative } from './checks.js';
import { controllerRateLimiter, defaultControllerRateLimiter } from './controllerRateLimiter.js';
import { RateLimitingWorkQueue, type RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';

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
  const clock = deps.clock ?? realClock;
  const metricsProvider = deps.metricsProvider ?? noopQueueMetricsProvider;
  const periodMs = deps.unfinishedWorkUpdatePeriodMs ?? 0;
  checkNonNegative('createWorkQueueFactory', 'unfinishedWorkUpdatePeriodMs', periodMs);
  return <T>(options: WorkQueueOptions<T>): RateLimitingQueue<T> => {
    const rateLimiter =
      options.rateLimiter ??
      (options.limits !== undefined
        ? controllerRateLimiter<T>(options.limits, clock, options.key)
        : defaultControllerRateLimiter<T>(clock, options.key));
    const queueOptions: RateLimitingWorkQueueOptions<T> = {
      key: options.key,
      name: options.name,
      clock,
      metricsProvider,
      rateLimiter,
      unfinishedWorkUpdatePeriodMs: periodMs,
    };
    return new RateLimitingWorkQueue<T>(queueOptions);
  };
}
