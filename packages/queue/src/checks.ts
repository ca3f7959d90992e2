import { MAX_TIMER_DELAY_MS } from '@protean/core/internal';
import { QueueArgumentError } from './QueueArgumentError.js';

// Validation shared by the queues and limiters. Every check rejects NaN,
// because a NaN delay or rate would otherwise pass `<`/`>` tests silently.

/** Throws unless `value` is a finite number >= 0. */
export function checkNonNegative(where: string, argument: string, value: number): void {
  if (typeof value !== 'number' || !(value >= 0) || value === Infinity) {
    throw new QueueArgumentError(where, argument, value, 'must be a finite number >= 0');
  }
}

/** Throws unless `value` is a number > 0 (`Infinity` allowed: no limit). */
export function checkPositive(where: string, argument: string, value: number): void {
  if (typeof value !== 'number' || !(value > 0)) {
    throw new QueueArgumentError(where, argument, value, 'must be a number > 0');
  }
}

/** Throws unless `value` is an integer >= 1. */
export function checkPositiveInteger(where: string, argument: string, value: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new QueueArgumentError(where, argument, value, 'must be an integer >= 1');
  }
}

/**
 * Throws unless `value` can be a timer's delay: a number from 0 to core's
 * `MAX_TIMER_DELAY_MS` (2^31 - 1), past which Node fires the timer after 1 ms.
 */
export function checkTimerDelay(where: string, argument: string, value: number): void {
  if (typeof value !== 'number' || !(value >= 0) || value > MAX_TIMER_DELAY_MS) {
    throw new QueueArgumentError(
      where,
      argument,
      value,
      `must be a number from 0 to ${MAX_TIMER_DELAY_MS} (the longest delay Node's timers honour)`,
    );
  }
}

/** Throws unless `base` and `max` are finite numbers with 0 <= `base` <= `max`: a backoff's first delay and its cap. */
export function checkBackoff(where: string, baseArgument: string, base: number, maxArgument: string, max: number): void {
  checkNonNegative(where, baseArgument, base);
  checkNonNegative(where, maxArgument, max);
  if (max < base) throw new QueueArgumentError(where, maxArgument, max, `must be >= ${baseArgument} (${base})`);
}

/** Throws unless `qps` is a number > 0 (`Infinity`: no limit) and `burst` an integer >= 1: a token bucket. */
export function checkBucket(where: string, qpsArgument: string, qps: number, burstArgument: string, burst: number): void {
  checkPositive(where, qpsArgument, qps);
  checkPositiveInteger(where, burstArgument, burst);
}
