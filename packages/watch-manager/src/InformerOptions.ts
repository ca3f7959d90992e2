import type { Clock, Logger } from '@protean/core';
import { checkTimerDelay } from './checkTimerDelay.js';

/** Options of an {@link Informer}. */
export interface InformerOptions {
  /**
   * How often the cache is replayed to the listener as updates to itself
   * (`onUpdate(obj, obj, true)`); 0 (default) disables resync. A number
   * from 0 to 2 147 483 647 (core's `MAX_TIMER_DELAY_MS`, the longest
   * delay Node's timers honour), or the constructor throws a `RangeError`.
   */
  readonly resyncPeriodMs?: number;
  /** Paces resync and the health ages. Default: the real clock. */
  readonly clock?: Clock;
  /** Where a throwing listener is logged. Default: silent. */
  readonly logger?: Logger;
  /** The source delivers full objects (see `holdsObjects`). Default false. */
  readonly holdsObjects?: boolean;
}

/**
 * Checks a resync period where it enters (`owner`: the constructor it was
 * given to): a finite number >= 0 and at most core's `MAX_TIMER_DELAY_MS`,
 * else a `RangeError` naming `resyncPeriodMs` and the rule it broke.
 */
export function checkResyncPeriodMs(owner: 'Informer' | 'InformerWatchManager', value: number): void {
  if (!(value >= 0 && Number.isFinite(value))) {
    throw new RangeError(`${owner}: resyncPeriodMs must be a finite number >= 0, got ${String(value)}`);
  }
  checkTimerDelay(`${owner}: resyncPeriodMs`, value);
}
