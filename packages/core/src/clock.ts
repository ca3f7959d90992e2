/** Opaque handle of a timer started by a {@link Clock}. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/**
 * Time as Protean components see it. Production code uses {@link realClock};
 * tests inject a fake clock and advance it without sleeping.
 */
export interface Clock {
  /** Milliseconds, monotonic (not wall-clock). */
  now(): number;
  setTimeout(fn: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The longest delay, in milliseconds, that Node's timers honour (2^31 - 1,
 * about 24.8 days). Node fires a longer `setTimeout` after 1 ms, with a
 * `TimeoutOverflowWarning`, so a repeating timer armed with more runs every
 * millisecond. Settings whose value becomes a timer's delay are checked
 * against it where they enter.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** The process clock: `performance.now()` and Node timers (ref'd: a pending requeue keeps the process alive). */
export const realClock: Clock = Object.freeze({
  // The real clock itself: the one place these are read.
  // eslint-disable-next-line no-restricted-properties
  now: () => performance.now(),
  // eslint-disable-next-line no-restricted-globals
  setTimeout: (fn: () => void, delayMs: number): TimerHandle => setTimeout(fn, delayMs),
  clearTimeout: (handle: TimerHandle): void => {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
});
