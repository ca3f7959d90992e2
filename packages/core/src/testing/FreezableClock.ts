import type { Clock, TimerHandle } from '../clock.js';

interface Timer {
  readonly fn: () => void;
  readonly dueMs: number;
  inner: TimerHandle | undefined;
}

/**
 * One process's view of a shared {@link Clock} (usually a `FakeClock`)
 * that can be frozen, as `SIGSTOP`, a VM pause or a long GC freeze a
 * process: while frozen, `now()` keeps running (the monotonic clock goes on
 * through a freeze) but none of this clock's timers fire; on
 * {@link thaw} every timer that fell due meanwhile fires, in the order it
 * fell due, as the process's event loop does when it wakes.
 *
 * Easy to get wrong: only timers are frozen. Promise continuations of the
 * process still run when something outside it (a fake client shared with
 * unfrozen processes) settles them; make such calls hang while frozen.
 */
export class FreezableClock implements Clock {
  private frozenFlag = false;
  private readonly held: Timer[] = [];

  constructor(private readonly inner: Clock) {}

  /** True between {@link freeze} and {@link thaw}. */
  get frozen(): boolean {
    return this.frozenFlag;
  }

  now(): number {
    return this.inner.now();
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const timer: Timer = { fn, dueMs: this.inner.now() + Math.max(0, delayMs), inner: undefined };
    timer.inner = this.inner.setTimeout(() => this.fire(timer), delayMs);
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    const timer = handle as Timer;
    if (timer.inner !== undefined) this.inner.clearTimeout(timer.inner);
    timer.inner = undefined;
    const i = this.held.indexOf(timer);
    if (i >= 0) this.held.splice(i, 1);
  }

  /** Stops this clock's timers from firing until {@link thaw}. */
  freeze(): void {
    this.frozenFlag = true;
  }

  /** Wakes the process: the timers that fell due while frozen fire next, in the order they fell due. */
  thaw(): void {
    this.frozenFlag = false;
    const due = this.held.splice(0).sort((a, b) => a.dueMs - b.dueMs);
    // Scheduled now in due order, they fire at the shared clock's next advance before any later timer.
    for (const timer of due) timer.inner = this.inner.setTimeout(() => this.fire(timer), 0);
  }

  private fire(timer: Timer): void {
    timer.inner = undefined;
    if (this.frozenFlag) {
      this.held.push(timer);
      return;
    }
    timer.fn();
  }
}
