import { FairRateLimitingQueue } from './FairRateLimitingQueue.js';
import type { RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';

/** Builds a fair queue from the options a base-queue test would use. */
export type MakeFairQueue = <T>(options: RateLimitingWorkQueueOptions<T>) => FairRateLimitingQueue<T>;

/**
 * The two extreme configurations of {@link FairRateLimitingQueue}, for tests
 * parametrized over queue classes: every item in one group, and every key in
 * a group of its own. Both hand items out in plain FIFO order (a
 * group-per-key queue holds at most one item per group, and groups join the
 * rotation in arrival order), so every semantics test of the base queues
 * applies to them unchanged.
 */
export const fairQueueKinds: readonly (readonly [label: string, make: MakeFairQueue])[] = [
  ['FairRateLimitingQueue (one group)', (options) => new FairRateLimitingQueue({ ...options, group: () => 'all' })],
  ['FairRateLimitingQueue (a group per key)', (options) => new FairRateLimitingQueue({ ...options, group: options.key })],
];
