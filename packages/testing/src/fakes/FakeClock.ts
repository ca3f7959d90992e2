/**
 * Core's fake clock, re-exported so tests import every fake from one place.
 * Bind it to `TOKENS.clock` (or pass it to `createTestController`) and move
 * time with `advanceAsync`, which lets woken promises run between timers.
 */
export { FakeClock, flushMicrotasks } from '@protean/core';
