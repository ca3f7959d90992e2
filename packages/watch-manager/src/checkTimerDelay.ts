import { MAX_TIMER_DELAY_MS } from '@protean/core/internal';

/**
 * Throws a `RangeError` naming `name` (`'Informer: resyncPeriodMs'`) when
 * `value`, a delay a timer is armed with, is past core's
 * `MAX_TIMER_DELAY_MS` (2^31 - 1 ms, about 24.8 days): Node fires a longer
 * timer after 1 ms, so a repeating one would run every millisecond.
 * `alternative`: what else the setting takes, for the message
 * (`'Infinity (wait for the deadline)'`).
 *
 * Easy to get wrong: `Infinity` is past the limit too. A setting where
 * `Infinity` means "never" must not reach this check with it.
 */
export function checkTimerDelay(name: string, value: number, alternative?: string): void {
  if (value > MAX_TIMER_DELAY_MS) {
    const or = alternative === undefined ? '' : ` or ${alternative}`;
    throw new RangeError(`${name} must be at most ${MAX_TIMER_DELAY_MS} ms (the longest delay Node's timers honour)${or}, got ${value}`);
  }
}
