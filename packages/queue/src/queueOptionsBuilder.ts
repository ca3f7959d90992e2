import { realClock, type Clock, type QueueMetricsProvider, type WorkQueueOptions } from '@protean/core';
import { noopQueueMetricsProvider } from '@protean/core/internal';
import { checkTimerDelay } from './checks.js';
import { controllerRateLimiter, defaultControllerRateLimiter } from './controllerRateLimiter.js';
import type { RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';

/** What every queue built by {@link createWorkQueueFactory} (or another factory of the package) shares. */
export interface WorkQueueFactoryDeps {
  /** Defaults to core's `realClock`. */
  readonly clock?: Clock;
  /** Defaults to the no-op provider. */
  readonly metricsProvider?: QueueMetricsProvider;
  /** See {@link BasicWorkQueueOptions.unfinishedWorkUpdatePeriodMs}; default 0 (off). */
  readonly unfinishedWorkUpdatePeriodMs?: number;
}
/** Turns core's per-queue options into a rate-limiting queue's options. */
export type QueueOptionsBuilder = <T>(options: WorkQueueOptions<T>) => RateLimitingWorkQueueOptions<T>;

/**
 * What every work queue factory of the package shares (internal): validates
 * `deps` now, then per queue picks `options.rateLimiter`, else a limiter
 * built from `options.limits`, else {@link defaultControllerRateLimiter},
 * all on the shared clock. Bad `limits` throw when a queue is built.
 * @param where - the factory's name, for error messages
 */
export function queueOptionsBuilder(where: string, deps: WorkQueueFactoryDeps): QueueOptionsBuilder {
  const clock = deps.clock ?? realClock;
  const metricsProvider = deps.metricsProvider ?? noopQueueMetricsProvider;
  const periodMs = deps.unfinishedWorkUpdatePeriodMs ?? 0;
  checkTimerDelay(where, 'unfinishedWorkUpdatePeriodMs', periodMs);
  return <T>(options: WorkQueueOptions<T>): RateLimitingWorkQueueOptions<T> => ({
    key: options.key,
    name: options.name,
    clock,
    metricsProvider,
    rateLimiter:
      options.rateLimiter ??
      (options.limits !== undefined
        ? controllerRateLimiter<T>(options.limits, clock, options.key)
        : defaultControllerRateLimiter<T>(clock, options.key)),
    unfinishedWorkUpdatePeriodMs: periodMs,
  });
}
