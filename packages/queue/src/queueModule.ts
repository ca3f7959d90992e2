import { TOKENS } from '@protean/core';
import type { ContainerModule } from 'inversify';
import { containerModule } from '@protean/core/internal';
import { checkTimerDelay } from './checks.js';
import { createWorkQueueFactory } from './createWorkQueueFactory.js';

/** Options of {@link queueModule}. */
export interface QueueModuleOptions {
  /**
   * Refresh period of the unfinished-work gauges of metered queues (client-go
   * uses 500). Default 0: the metrics adapter calls
   * `RateLimitingWorkQueue.updateUnfinishedWork()` itself.
   */
  readonly unfinishedWorkUpdatePeriodMs?: number;
}

/**
 * Binds `TOKENS.workQueueFactory` to a factory of {@link RateLimitingWorkQueue}s
 * that use the container's `TOKENS.clock` and `TOKENS.queueMetricsProvider`.
 * Load it after core's `coreModule`, which binds those two.
 *
 * Easy to get wrong: to plug in another queue, rebind the token after
 * loading this module and before the first `container.get`:
 * `container.rebind(TOKENS.workQueueFactory).toConstantValue(myFactory)`.
 */
export function queueModule(options: QueueModuleOptions = {}): ContainerModule {
  const periodMs = options.unfinishedWorkUpdatePeriodMs ?? 0;
  checkTimerDelay('queueModule', 'unfinishedWorkUpdatePeriodMs', periodMs);
  return containerModule((container) => {
    container
      .bind(TOKENS.workQueueFactory)
      .toDynamicValue((context) =>
        createWorkQueueFactory({
          clock: context.get(TOKENS.clock),
          metricsProvider: context.get(TOKENS.queueMetricsProvider),
          unfinishedWorkUpdatePeriodMs: periodMs,
        }),
      )
      .inSingletonScope();
  });
}
