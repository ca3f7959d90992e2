import {
  realClock,
  type Clock,
  type EnqueueSource,
  type QueueGetResult,
  type QueueMetricsProvider,
  type TimerHandle,
  type WorkQueue,
} from '@protean/core';
import { noopQueueMetricsProvider } from '@protean/core/internal';
import { checkTimerDelay } from './checks.js';
import type { KeyFunc } from './KeyFunc.js';
import { createQueueMetrics, metricsEnabled, type QueueMetrics } from './QueueMetrics.js';
import type { QueuedItem, QueueStore, QueueStoreFactory } from './QueueStore.js';
import { RingBuffer } from './RingBuffer.js';

/** Options of {@link BasicWorkQueue}. */
export interface BasicWorkQueueOptions<T> {
  /** Identity of an item; see {@link KeyFunc}. */
  readonly key: KeyFunc<T>;
  /**
   * Metric name. As in client-go, a queue without a name reports no metrics
   * even when a provider is given.
   */
  readonly name?: string;
  /** Time source for metrics and delays; defaults to core's `realClock`. */
  readonly clock?: Clock;
  /** Receives the queue's `workqueue_*` metrics; defaults to the no-op provider. */
  readonly metricsProvider?: QueueMetricsProvider;
  /**
   * When > 0 and the queue is metered, refreshes the unfinished-work and
   * longest-running-processor gauges on a clock timer this often (client-go
   * uses 500; at most 2 147 483 647, the longest timer Node honours). The
   * timer stops at shutdown. Default 0: call
   * {@link BasicWorkQueue.updateUnfinishedWork} yourself, e.g. on scrape.
   */
  readonly unfinishedWorkUpdatePeriodMs?: number;
  /**
   * Builds the store that orders queued items (see {@link QueueStore});
   * default a single FIFO. The dirty/processing rules do not depend on it.
   */
  readonly store?: QueueStoreFactory<T>;
}

const QUEUED = 0;
const PROCESSING = 1;
/** Being processed and added again: goes back in the queue on `done`. */
const PROCESSING_DIRTY = 2;
type State = typeof QUEUED | typeof PROCESSING | typeof PROCESSING_DIRTY;

// One record per key known to the queue (queued or being processed), so
// add/get/done cost one map lookup each instead of separate dirty and
// processing sets.
class Entry<T> implements QueuedItem<T> {
  state: State = QUEUED;
  queuedAt = 0;
  startedAt = 0;
  constructor(
    readonly key: string,
    public item: T,
    public source: EnqueueSource | undefined,
  ) {}
}

type Getter<T> = (result: QueueGetResult<T>) => void;

const SHUTDOWN: QueueGetResult<never> = Object.freeze({ shutdown: true });

/**
 * client-go's work queue: a FIFO with a dirty set and a processing set
 * (`options.store` can replace the FIFO order, e.g. with round robin by group).
 * Adding an item that is already queued does nothing; adding one that is
 * being processed marks it dirty and it is queued again, once, when `done`
 * is called for it, so two workers never hold the same key.
 *
 * Easy to get wrong: every item returned by `get()` must be passed to
 * `done()` (in a `finally`), or its key stays "processing" forever and later
 * adds of it are never handed out.
 */
export class BasicWorkQueue<T> implements WorkQueue<T> {
  /** The metric name ('' when unnamed). */
  readonly name: string;
  protected readonly keyOf: KeyFunc<T>;
  protected readonly clock: Clock;
  /** The provider when the queue is metered, otherwise `undefined`. */
  protected readonly meteredBy: QueueMetricsProvider | undefined;

  private readonly entries = new Map<string, Entry<T>>();
  // Holds only this queue's own entries, so what it hands back is an Entry.
  private readonly queue: QueueStore<QueuedItem<T>>;
  // Non-empty only while the queue is empty and running.
  private readonly getters = new RingBuffer<Getter<T>>();
  private drainWaiters: (() => void)[] = [];
  private processingCount = 0;
  private stopped = false;
  private readonly metrics: QueueMetrics | undefined;
  private readonly unfinishedWorkUpdatePeriodMs: number;
  private metricsTimer: TimerHandle | undefined;

  constructor(options: BasicWorkQueueOptions<T>) {
    if (typeof options.key !== 'function') {
      throw new TypeError(`${new.target.name}: options.key must be a function, got ${typeof options.key}`);
    }
    const period = options.unfinishedWorkUpdatePeriodMs ?? 0;
    checkTimerDelay(`${new.target.name}`, 'unfinishedWorkUpdatePeriodMs', period);
    if (options.store !== undefined && typeof options.store !== 'function') {
      throw new TypeError(`${new.target.name}: options.store must be a function, got ${typeof options.store}`);
    }
    this.keyOf = options.key;
    this.queue = options.store === undefined ? new RingBuffer<QueuedItem<T>>() : options.store();
    this.name = options.name ?? '';
    this.clock = options.clock ?? realClock;
    const provider = options.metricsProvider ?? noopQueueMetricsProvider;
    this.meteredBy = metricsEnabled(this.name, provider) ? provider : undefined;
    this.metrics = createQueueMetrics(this.name, provider);
    this.unfinishedWorkUpdatePeriodMs = period;
    if (this.metrics !== undefined && period > 0) this.armMetricsTimer();
  }

  /**
   * Queues `item` unless it is already queued; ignored after shutdown.
   * `source` says why; only a store that orders by it (see
   * {@link QueueStore.addedAgain}) makes a difference.
   */
  add(item: T, source?: EnqueueSource): void {
    if (this.stopped) return;
    const key = this.keyOf(item);
    const entry = this.entries.get(key);
    if (entry === undefined) {
      const created = new Entry(key, item, source);
      this.entries.set(key, created);
      this.recordAdd(created);
      this.enqueue(created);
    } else if (entry.state === PROCESSING) {
      // The newest value is the one handed out again after `done`.
      entry.item = item;
      entry.source = source;
      entry.state = PROCESSING_DIRTY;
      this.recordAdd(entry);
    } else {
      this.queue.addedAgain?.(entry, source, entry.state === QUEUED);
    }
  }

  /** Number of queued items; items being processed are not counted. */
  len(): number {
    return this.queue.size;
  }

  /**
   * Resolves with the next item, waiting if none is queued. Concurrent
   * waiters are served in the order they called. After shutdown, queued items
   * are still handed out; `{ shutdown: true }` comes once the queue is empty.
   */
  get(): Promise<QueueGetResult<T>> {
    const entry = this.queue.shift() as Entry<T> | undefined;
    if (entry !== undefined) return Promise.resolve(this.startProcessing(entry));
    if (this.stopped) return Promise.resolve(SHUTDOWN);
    return new Promise<QueueGetResult<T>>((resolve) => this.getters.push(resolve));
  }

  /**
   * Marks `item` finished. If it was added while being processed it is
   * queued again now. An item that is not being processed is ignored.
   */
  done(item: T): void {
    const key = this.keyOf(item);
    const entry = this.entries.get(key);
    // Deliberately differs from client-go: `done` for an item that is only
    // queued is ignored rather than queuing a second copy of it.
    if (entry === undefined || entry.state === QUEUED) return;
    this.processingCount--;
    if (this.metrics !== undefined) {
      this.metrics.workDuration.observe((this.clock.now() - entry.startedAt) / 1000);
    }
    if (entry.state === PROCESSING_DIRTY) {
      this.enqueue(entry);
    } else {
      this.entries.delete(key);
    }
    if (this.processingCount === 0 && this.drainWaiters.length > 0) this.releaseDrainWaiters();
  }

  /**
   * Stops accepting adds and wakes waiting getters once nothing is queued.
   * Also ends a pending {@link shutdownWithDrain} wait, as in client-go.
   */
  shutdown(): void {
    this.stop();
    this.releaseDrainWaiters();
  }

  /**
   * Like {@link shutdown}, then resolves once no item is being processed.
   * Easy to get wrong: workers must keep calling `get`/`done` meanwhile, or
   * this never resolves; a `shutdown()` call ends the wait early.
   */
  shutdownWithDrain(): Promise<void> {
    this.stop();
    if (this.processingCount === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.stopped;
  }

  /**
   * Sets the unfinished-work gauge (seconds all in-flight items have been
   * processing, summed) and the longest-running-processor gauge. A metrics
   * adapter calls this on scrape unless `unfinishedWorkUpdatePeriodMs` is
   * set. O(queued + processing items); a no-op for an unmetered queue.
   */
  updateUnfinishedWork(): void {
    if (this.metrics === undefined) return;
    const now = this.clock.now();
    let totalMs = 0;
    let longestMs = 0;
    if (this.processingCount > 0) {
      for (const entry of this.entries.values()) {
        if (entry.state === QUEUED) continue;
        const runningMs = now - entry.startedAt;
        totalMs += runningMs;
        if (runningMs > longestMs) longestMs = runningMs;
      }
    }
    this.metrics.unfinishedWorkSeconds.set(totalMs / 1000);
    this.metrics.longestRunningProcessorSeconds.set(longestMs / 1000);
  }

  /** Called once, at the first shutdown call; subclasses release their timers here. */
  protected onShutDown(): void {
    if (this.metricsTimer !== undefined) {
      this.clock.clearTimeout(this.metricsTimer);
      this.metricsTimer = undefined;
    }
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onShutDown();
    // Getters wait only while nothing is queued, so all of them see shutdown.
    for (let getter = this.getters.shift(); getter !== undefined; getter = this.getters.shift()) getter(SHUTDOWN);
  }

  private enqueue(entry: Entry<T>): void {
    entry.state = QUEUED;
    const getter = this.getters.shift();
    // Hand the item straight to the longest-waiting getter: it is processing
    // from this moment, so no other getter can receive it.
    if (getter !== undefined) getter(this.startProcessing(entry));
    else this.queue.push(entry);
  }

  private startProcessing(entry: Entry<T>): QueueGetResult<T> {
    entry.state = PROCESSING;
    this.processingCount++;
    if (this.metrics !== undefined) {
      const now = this.clock.now();
      entry.startedAt = now;
      this.metrics.depth.dec();
      this.metrics.latency.observe((now - entry.queuedAt) / 1000);
    }
    return { item: entry.item, shutdown: false };
  }

  private recordAdd(entry: Entry<T>): void {
    if (this.metrics === undefined) return;
    entry.queuedAt = this.clock.now();
    this.metrics.adds.inc();
    this.metrics.depth.inc();
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private armMetricsTimer(): void {
    this.metricsTimer = this.clock.setTimeout(() => {
      this.metricsTimer = undefined;
      if (this.stopped) return;
      this.updateUnfinishedWork();
      this.armMetricsTimer();
    }, this.unfinishedWorkUpdatePeriodMs);
    unref(this.metricsTimer);
  }
}

// A metrics refresh must never keep the process alive on its own.
function unref(handle: TimerHandle): void {
  const maybe = handle as { unref?: unknown };
  if (typeof maybe.unref === 'function') (maybe.unref as () => void).call(handle);
}
