import type { DelayingQueue, EnqueueSource, TimerHandle, CounterMetric } from '@protean/core';
import { BasicWorkQueue, type BasicWorkQueueOptions } from './BasicWorkQueue.js';
import { QueueArgumentError } from './QueueArgumentError.js';
import { ReadyTimeHeap } from './ReadyTimeHeap.js';

/** Options of {@link DelayingWorkQueue}. */
export type DelayingWorkQueueOptions<T> = BasicWorkQueueOptions<T>;

// Node fires a timer longer than 2^31-1 ms after 1 ms; longer waits re-arm.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * client-go's delaying queue: a {@link BasicWorkQueue} plus `addAfter`.
 * Delayed items wait in a min-heap by ready time behind a single clock timer
 * armed for the earliest one.
 *
 * Easy to get wrong: a delayed item is not in the queue yet, so `len()` does
 * not count it and it can be added directly meanwhile (the later delayed add
 * then collapses or re-queues as any add would). Pending delayed items are
 * dropped at shutdown.
 */
export class DelayingWorkQueue<T> extends BasicWorkQueue<T> implements DelayingQueue<T> {
  private readonly waiting = new ReadyTimeHeap<T>();
  private timer: TimerHandle | undefined;
  /** When the armed timer fires; `Infinity` when none is armed. */
  private timerAt = Infinity;
  private readonly retries: CounterMetric | undefined;

  constructor(options: DelayingWorkQueueOptions<T>) {
    super(options);
    this.retries = this.meteredBy?.newRetriesMetric(this.name);
  }

  /**
   * Adds `item` once `delayMs` has passed; `0` adds it now. If the item is
   * already waiting, the earlier of the two ready times wins. Counts one
   * retry in the metrics (as client-go does for every delayed add).
   * `source` is given to the `add` made when the delay ends; an item already
   * waiting keeps the source of whichever of its two adds is due first.
   * @throws QueueArgumentError when `delayMs` is negative, `NaN` or infinite.
   */
  addAfter(item: T, delayMs: number, source?: EnqueueSource): void {
    if (typeof delayMs !== 'number' || !(delayMs >= 0) || delayMs === Infinity) {
      throw new QueueArgumentError(`${this.constructor.name}.addAfter`, 'delayMs', delayMs, 'must be a finite number >= 0');
    }
    if (this.shuttingDown()) return;
    this.retries?.inc();
    if (delayMs === 0) {
      this.add(item, source);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    this.waiting.schedule(this.keyOf(item), item, readyAt, source);
    if (readyAt < this.timerAt) this.armTimer();
  }

  /** When `item` joins the queue (the queue clock's `now()`), or undefined when it is not waiting. */
  readyAt(item: T): number | undefined {
    return this.waiting.readyAtOf(this.keyOf(item));
  }

  /** Number of delayed items still waiting for their ready time. */
  waitingLen(): number {
    return this.waiting.size;
  }

  protected override onShutDown(): void {
    super.onShutDown();
    this.waiting.clear();
    this.clearTimer();
  }

  private armTimer(): void {
    this.clearTimer();
    const earliest = this.waiting.earliest();
    if (earliest === undefined) return;
    const now = this.clock.now();
    const delayMs = Math.min(Math.max(0, earliest - now), MAX_TIMER_MS);
    this.timerAt = now + delayMs;
    this.timer = this.clock.setTimeout(() => this.fire(), delayMs);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.timerAt = Infinity;
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    for (let ready = this.waiting.popReady(now); ready !== undefined; ready = this.waiting.popReady(now)) {
      this.add(ready.item, ready.source);
    }
    this.armTimer();
  }
}
