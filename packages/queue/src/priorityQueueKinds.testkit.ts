import { PriorityRateLimitingQueue } from './PriorityRateLimitingQueue.js';
import type { RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';

/** Builds a priority queue from the options a base-queue test would use. */
export type MakePriorityQueue = <T>(options: RateLimitingWorkQueueOptions<T>) => PriorityRateLimitingQueue<T>;

/**
 * {@link PriorityRateLimitingQueue} with aging (the default 30 s) and
 * without it (strict priority), for tests parametrized over queue classes.
 * The base queues' tests add without a source, so every item is `normal`
 * and both hand items out in plain FIFO order: every semantics test of the
 * base queues applies to them unchanged.
 */
export const priorityQueueKinds: readonly (readonly [label: string, make: MakePriorityQueue])[] = [
  ['PriorityRateLimitingQueue (aging)', (options) => new PriorityRateLimitingQueue(options)],
  ['PriorityRateLimitingQueue (strict)', (options) => new PriorityRateLimitingQueue({ ...options, maxWaitMs: Infinity })],
];
