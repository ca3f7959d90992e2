import type { Clock, TimerHandle } from '../clock.js';

interface FakeTimer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/**
 * A {@link Clock} whose time moves only when a test calls {@link advance}.
 * Timers due at the same instant fire in the order they were set, and a
 * timer set by a firing timer fires in the same `advance` if it falls due.
 */
export class FakeClock implements Clock {
  private time: number;
  private nextId = 1;
  private timers: FakeTimer[] = [];

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const timer: FakeTimer = { id: this.nextId++, at: this.time + Math.max(0, delayMs), fn };
    this.timers.push(timer);
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }

  /** Number of timers not yet fired. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${String(ms)}`);
    const target = this.time + ms;
    while (this.fireNext(target));
    this.time = target;
  }

  /**
   * Like {@link advance}, but lets promise continuations run after each
   * timer, so async code woken by a timer can react before the next fires.
   */
  async advanceAsync(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advanceAsync: ms must be >= 0, got ${String(ms)}`);
    const target = this.time + ms;
    await flushMicrotasks();
    while (this.fireNext(target)) await flushMicrotasks();
    this.time = target;
    await flushMicrotasks();
  }

  /** Fires the earliest timer due by `target`, moving time to it; false when none is due. */
  private fireNext(target: number): boolean {
    const next = this.earliestDue(target);
    if (next === undefined) return false;
    this.timers.splice(this.timers.indexOf(next), 1);
    this.time = next.at;
    next.fn();
    return true;
  }

  private earliestDue(target: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (t.at <= target && (best === undefined || t.at < best.at || (t.at === best.at && t.id < best.id))) best = t;
    }
    return best;
  }
}

/** Resolves after pending promise continuations (several hops deep) have run. */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}
