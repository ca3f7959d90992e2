import type { ContainerModule } from 'inversify';
import { checkTimerDelay } from './checks.js';
import { createPriorityWorkQueueFactory } from './createPriorityWorkQueueFactory.js';
import type { QueueModuleOptions } from './queueModule.js';
import { replaceQueueFactory } from './replaceQueueFactory.js';
import { checkMaxWait, sourceLevels, type SourcePriorities } from './sourcePriorities.js';

/** Options of {@link priorityQueueModule}. */
export interface PriorityQueueModuleOptions extends QueueModuleOptions {
  /** See {@link PriorityQueueStoreOptions.maxWaitMs}; default 30,000 (30 s). */
  readonly maxWaitMs?: number;
  /** Priority per enqueue source over {@link DEFAULT_SOURCE_PRIORITIES}. */
  readonly priorities?: SourcePriorities;
}

/**
 * Binds `TOKENS.workQueueFactory` to a factory of {@link PriorityRateLimitingQueue}s
 * (see {@link createPriorityWorkQueueFactory}) on the container's `TOKENS.clock`
 * and `TOKENS.queueMetricsProvider`, replacing any factory already bound.
 * The DynamicController then reconciles a change seen live before the
 * initial-list, resync and takeover items queued ahead of it, and no item
 * waits much longer than `maxWaitMs`.
 *
 * kro-diff: with this module loaded the controller queue serves live changes
 * before initial-list, resync and takeover replays, with a bound on every
 * item's wait; kro's controller queue is one FIFO.
 *
 * Easy to get wrong: load it after `queueModule()` (or instead of it). A
 * `queueModule()` loaded after it adds a second factory binding, and
 * resolving the token then fails as ambiguous.
 * @throws QueueArgumentError at once for a bad period, `maxWaitMs` or `priorities`.
 */
export function priorityQueueModule(options: PriorityQueueModuleOptions = {}): ContainerModule {
  const periodMs = options.unfinishedWorkUpdatePeriodMs ?? 0;
  checkTimerDelay('priorityQueueModule', 'unfinishedWorkUpdatePeriodMs', periodMs);
  if (options.maxWaitMs !== undefined) checkMaxWait('priorityQueueModule', options.maxWaitMs);
  sourceLevels('priorityQueueModule', options.priorities);
  const { maxWaitMs, priorities } = options;
  return replaceQueueFactory((context) =>
    createPriorityWorkQueueFactory({
      ...context,
      unfinishedWorkUpdatePeriodMs: periodMs,
      ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
      ...(priorities === undefined ? {} : { priorities }),
    }),
  );
}
