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
