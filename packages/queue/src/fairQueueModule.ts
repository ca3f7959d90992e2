import type { ContainerModule } from 'inversify';
import { checkTimerDelay } from './checks.js';
import { createFairWorkQueueFactory } from './createFairWorkQueueFactory.js';
import type { QueueModuleOptions } from './queueModule.js';
import { replaceQueueFactory } from './replaceQueueFactory.js';
import type { GroupFunc } from './RoundRobinQueueStore.js';

/** Options of {@link fairQueueModule}. */
export interface FairQueueModuleOptions extends QueueModuleOptions {
  /**
   * The group of an item; default {@link gvrGroup} (the DynamicController's
   * parent GVR). A queue whose options carry a `group` function uses that
   * instead (see {@link FairWorkQueueOptions}).
   */
  readonly group?: GroupFunc<unknown>;
}

/**
 * Binds `TOKENS.workQueueFactory` to a factory of {@link FairRateLimitingQueue}s
 * (see {@link createFairWorkQueueFactory}) on the container's `TOKENS.clock`
 * and `TOKENS.queueMetricsProvider`, replacing any factory already bound.
 * With `coreModule` and the other modules, the DynamicController then serves
 * its parent resource types in turn instead of first come, first served.
 *
 * kro-diff: with this module loaded the controller queue hands out the items
 * of its parent resource types in turn, so one busy parent cannot hold up the
 * others; kro's controller queue is one FIFO for all parents.
 *
 * Easy to get wrong: load it after `queueModule()` (or instead of it). A
 * `queueModule()` loaded after it adds a second factory binding, and
 * resolving the token then fails as ambiguous.
 * @throws QueueArgumentError / TypeError at once for a bad period or group.
 */
export function fairQueueModule(options: FairQueueModuleOptions = {}): ContainerModule {
  const periodMs = options.unfinishedWorkUpdatePeriodMs ?? 0;
  checkTimerDelay('fairQueueModule', 'unfinishedWorkUpdatePeriodMs', periodMs);
  if (options.group !== undefined && typeof options.group !== 'function') {
    throw new TypeError(`fairQueueModule: options.group must be a function, got ${typeof options.group}`);
  }
  const group = options.group;
  return replaceQueueFactory((context) =>
    createFairWorkQueueFactory({ ...context, unfinishedWorkUpdatePeriodMs: periodMs, ...(group === undefined ? {} : { group }) }),
  );
}
