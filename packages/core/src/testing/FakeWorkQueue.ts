import {
  realClock,
  type Clock,
  type EnqueueSource,
  type QueueGetResult,
  type RateLimiter,
  type RateLimitingQueue,
  type RateLimits,
  type TimerHandle,
  type WorkQueueFactory,
  type WorkQueueOptions,
} from '../index.js';

/** Options of a {@link FakeWorkQueue}; a superset of what a `WorkQueueFactory` is given. */
export interface FakeWorkQueueOptions<T> {
  /**
   * Identity of an item: two items with one key are the same item. Default:
   * the item itself, for string and number items; object items need one.
   */
  readonly key?: (item: T) => string;
  /** Name, for the test's own messages. Default `fake-work-queue`. */
  readonly name?: string;
  /** Time of `addAfter` and of the backoff. Default core's `realClock`. */
  readonly clock?: Clock;
  /**
   * Per-item backoff of `addRateLimited`: `minRetryDelayMs` doubling to
   * `maxRetryDelayMs` (default 5 ms to 1 000 s, client-go's). `qps` and
   * `burst` are accepted and ignored: the fake has no overall rate limit.
   */
  readonly limits?: Partial<RateLimits>;
  /** A ready-made limiter for `addRateLimited`, `forget` and `numRequeues`; takes precedence over `limits`. */
  readonly rateLimiter?: RateLimiter<T>;
}

/** One recorded call of a {@link FakeWorkQueue} (`delayMs`: asked for by `addAfter`, chosen by the backoff for `addRateLimited`). */
export interface FakeWorkQueueCall<T> {
  readonly op: 'add' | 'addAfter' | 'addRateLimited' | 'forget' | 'done';
  readonly item: T;
  readonly delayMs?: number;
  /** The `source` argument, when the caller gave one (the fake orders by arrival whatever it says). */
  readonly source?: EnqueueSource;
}

/** A delayed item of a {@link FakeWorkQueue}: added when the clock reaches `readyAt`. */
export interface FakeWaitingItem<T> {
  readonly item: T;
  readonly readyAt: number;
}

type EntryState = 'queued' | 'processing' | 'dirty';

interface Entry<T> {
  item: T;
  /** `dirty`: added again while processing; queued again on `done`. */
  state: EntryState;
}

interface Waiting<T> {
  readonly item: T;
  readonly readyAt: number;
  readonly timer: TimerHandle;
}

const SHUTDOWN: QueueGetResult<never> = Object.freeze({ shutdown: true });

/**
 * A small but faithful {@link RateLimitingQueue} (client-go's work queue
 * rules) for testing what sits on a queue, a controller's workers for
 * instance, without `@protean/queue`:
 *
 * - FIFO with a dirty set and a processing set: an item added while queued
 *   collapses into the queued one; an item added while handed out is queued
 *   again, once, on `done`; so a key is never handed out twice at a time.
 * - `get` waits while nothing is queued; waiting callers are served in order.
 * - `addAfter` waits on the injected clock (a `FakeClock` in tests); an item
 *   already waiting keeps the earlier ready time.
 * - `addRateLimited` waits a per-item exponential backoff; `forget` resets
 *   it and `numRequeues` counts the failures since.
 * - `shutdown` stops accepting adds, drops waiting items and wakes every
 *   `get` once nothing is queued (queued items are still handed out);
 *   `shutdownWithDrain` then also waits until every handed-out item is done.
 *
 * It records the calls of its mutators (`calls`) and shows its state
 * (`queued()`, `processing()`, `waiting()`).
 *
 * Easy to get wrong: waiting items are added only when the clock moves
 * (`clock.advanceAsync(ms)` with a `FakeClock`), and object items need the
 * `key` option.
 */
export class FakeWorkQueue<T> implements RateLimitingQueue<T> {
  readonly name: string;
  /** Every `add`, `addAfter`, `addRateLimited`, `forget` and `done`, in call order (also those ignored after shutdown). */
  readonly calls: FakeWorkQueueCall<T>[] = [];
  private readonly keyOf: (item: T) => string;
  private readonly clock: Clock;
  private readonly limiter: RateLimiter<T>;
  private readonly entries = new Map<string, Entry<T>>();
  private readonly fifo: string[] = [];
  private readonly getters: ((result: QueueGetResult<T>) => void)[] = [];
  private readonly delayed = new Map<string, Waiting<T>>();
  private drainWaiters: (() => void)[] = [];
  private processingCount = 0;
  private stopped = false;

  constructor(options: FakeWorkQueueOptions<T> = {}) {
    this.name = options.name ?? 'fake-work-queue';
    this.keyOf = options.key ?? primitiveKey;
    this.clock = options.clock ?? realClock;
    this.limiter =
      options.rateLimiter ??
      new ExponentialBackoff(this.keyOf, options.limits?.minRetryDelayMs ?? 5, options.limits?.maxRetryDelayMs ?? 1_000_000);
  }

  /**
   * A `WorkQueueFactory` building fake queues on `clock` from the options it
   * is given (key, name, limits or rateLimiter). Every queue it builds is
   * pushed to `built`, so a test can reach the queue a controller made.
   */
  static factory(clock: Clock = realClock, built: FakeWorkQueue<unknown>[] = []): WorkQueueFactory {
    return <T>(options: WorkQueueOptions<T>): RateLimitingQueue<T> => {
      const queue = new FakeWorkQueue<T>({ ...options, clock });
      built.push(queue as FakeWorkQueue<unknown>);
      return queue;
    };
  }

  add(item: T, source?: EnqueueSource): void {
    this.calls.push({ op: 'add', item, ...withSource(source) });
    this.addNow(item);
  }

  len(): number {
    return this.fifo.length;
  }

  get(): Promise<QueueGetResult<T>> {
    const key = this.fifo.shift();
    if (key !== undefined) return Promise.resolve(this.handOut(key));
    if (this.stopped) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(item: T): void {
    this.calls.push({ op: 'done', item });
    const key = this.keyOf(item);
    const entry = this.entries.get(key);
    if (entry === undefined || entry.state === 'queued') return; // not handed out: ignored
    this.processingCount--;
    if (entry.state === 'dirty') this.enqueue(key, entry);
    else this.entries.delete(key);
    if (this.processingCount === 0) this.releaseDrainWaiters();
  }

  shutdown(): void {
    this.stop();
    this.releaseDrainWaiters();
  }

  shutdownWithDrain(): Promise<void> {
    this.stop();
    if (this.processingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.stopped;
  }

  /** @throws RangeError when `delayMs` is negative, `NaN` or infinite. */
  addAfter(item: T, delayMs: number, source?: EnqueueSource): void {
    if (typeof delayMs !== 'number' || !(delayMs >= 0) || delayMs === Infinity) {
      throw new RangeError(`FakeWorkQueue.addAfter: delayMs must be a finite number >= 0, got ${String(delayMs)}`);
    }
    this.calls.push({ op: 'addAfter', item, delayMs, ...withSource(source) });
    this.addLater(item, delayMs);
  }

  addRateLimited(item: T, source?: EnqueueSource): void {
    const delayMs = Math.max(0, this.limiter.when(item));
    this.calls.push({ op: 'addRateLimited', item, delayMs, ...withSource(source) });
    this.addLater(item, delayMs);
  }

  forget(item: T): void {
    this.calls.push({ op: 'forget', item });
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }

  /** When `item` joins the queue (the clock's `now()`), or undefined when it is not waiting. */
  readyAt(item: T): number | undefined {
    return this.delayed.get(this.keyOf(item))?.readyAt;
  }

  /** The queued items, in the order `get` hands them out. */
  queued(): T[] {
    return this.fifo.map((key) => this.entries.get(key)!.item);
  }

  /** The items handed out by `get` and not yet `done`. */
  processing(): T[] {
    return [...this.entries.values()].filter((e) => e.state !== 'queued').map((e) => e.item);
  }

  /** The items waiting for their ready time (`addAfter`, `addRateLimited`), earliest first. */
  waiting(): FakeWaitingItem<T>[] {
    return [...this.delayed.values()].map(({ item, readyAt }) => ({ item, readyAt })).sort((x, y) => x.readyAt - y.readyAt);
  }

  private addNow(item: T): void {
    if (this.stopped) return;
    const key = this.keyOf(item);
    const entry = this.entries.get(key);
    if (entry === undefined) {
      const created: Entry<T> = { item, state: 'queued' };
      this.entries.set(key, created);
      this.enqueue(key, created);
    } else if (entry.state === 'processing') {
      // The newest value is the one handed out again after `done`.
      entry.item = item;
      entry.state = 'dirty';
    }
  }

  private addLater(item: T, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs === 0) {
      this.addNow(item);
      return;
    }
    const key = this.keyOf(item);
    const readyAt = this.clock.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending !== undefined) {
      if (pending.readyAt <= readyAt) return;
      this.clock.clearTimeout(pending.timer);
    }
    const timer = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.addNow(item);
    }, delayMs);
    this.delayed.set(key, { item, readyAt, timer });
  }

  private enqueue(key: string, entry: Entry<T>): void {
    entry.state = 'queued';
    const getter = this.getters.shift();
    if (getter !== undefined) getter(this.handOut(key));
    else this.fifo.push(key);
  }

  private handOut(key: string): QueueGetResult<T> {
    const entry = this.entries.get(key)!;
    entry.state = 'processing';
    this.processingCount++;
    return { item: entry.item, shutdown: false };
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const pending of this.delayed.values()) this.clock.clearTimeout(pending.timer);
    this.delayed.clear();
    // Getters wait only while nothing is queued, so every one of them sees shutdown.
    for (const getter of this.getters.splice(0)) getter(SHUTDOWN);
  }

  private releaseDrainWaiters(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}

/** The n-th failure of an item (from 0) waits `baseMs * 2^n`, capped at `maxMs`. */
class ExponentialBackoff<T> implements RateLimiter<T> {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  when(item: T): number {
    const key = this.keyOf(item);
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }

  forget(item: T): void {
    this.failures.delete(this.keyOf(item));
  }

  numRequeues(item: T): number {
    return this.failures.get(this.keyOf(item)) ?? 0;
  }
}

function primitiveKey(item: unknown): string {
  if (typeof item === 'string' || typeof item === 'number') return String(item);
  throw new TypeError(`FakeWorkQueue: items of type ${typeof item} need the key option (the queue's key function)`);
}

function withSource(source: EnqueueSource | undefined): { source?: EnqueueSource } {
  return source === undefined ? {} : { source };
}
