import type { EnqueueSource } from '@protean/core';
import { checkPositive } from './checks.js';
import { QueueArgumentError } from './QueueArgumentError.js';

/** The levels of a {@link PriorityQueueStore}, most urgent first. */
export type QueuePriority = 'high' | 'normal' | 'low';

/** Every {@link QueuePriority}, most urgent first. */
export const QUEUE_PRIORITIES: readonly QueuePriority[] = Object.freeze(['high', 'normal', 'low']);

/** The priority of each enqueue source; sources left out keep their default. */
export type SourcePriorities = Readonly<Partial<Record<EnqueueSource, QueuePriority>>>;

/**
 * The default priority of each source: a change seen live (and a failed
 * pass's retry) at `normal`; replays that change nothing by themselves
 * (initial list, resync, leadership takeover) and a handler's own requeue at
 * `low`. Nothing is `high` by default.
 */
export const DEFAULT_SOURCE_PRIORITIES: Readonly<Record<EnqueueSource, QueuePriority>> = Object.freeze({
  live: 'normal',
  retry: 'normal',
  'initial-list': 'low',
  resync: 'low',
  takeover: 'low',
  requeue: 'low',
});

/** How long an item may wait before it is served ahead of every younger item: 30 s. */
export const DEFAULT_MAX_WAIT_MS = 30_000;

/**
 * The level index (0 = high) of every source, from `overrides` over the
 * defaults. Internal to the package.
 * @throws QueueArgumentError for an unknown source or priority.
 */
export function sourceLevels(where: string, overrides: SourcePriorities = {}): Readonly<Record<string, number>> {
  if (typeof overrides !== 'object' || overrides === null) {
    throw new QueueArgumentError(where, 'priorities', overrides, 'must be an object mapping sources to priorities');
  }
  const levels: Record<string, number> = {};
  for (const [source, priority] of Object.entries(DEFAULT_SOURCE_PRIORITIES)) levels[source] = QUEUE_PRIORITIES.indexOf(priority);
  for (const [source, priority] of Object.entries(overrides)) {
    if (!(source in DEFAULT_SOURCE_PRIORITIES)) {
      throw new QueueArgumentError(
        where,
        'priorities',
        source,
        `unknown source; one of ${Object.keys(DEFAULT_SOURCE_PRIORITIES).join(', ')}`,
      );
    }
    const level = QUEUE_PRIORITIES.indexOf(priority as QueuePriority);
    if (level < 0) {
      throw new QueueArgumentError(where, `priorities.${source}`, priority, `must be one of ${QUEUE_PRIORITIES.join(', ')}`);
    }
    levels[source] = level;
  }
  return Object.freeze(levels);
}

/** Throws unless `maxWaitMs` is a number > 0 (`Infinity`: no aging). Internal to the package. */
export function checkMaxWait(where: string, maxWaitMs: number): void {
  checkPositive(where, 'maxWaitMs', maxWaitMs);
}
