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
