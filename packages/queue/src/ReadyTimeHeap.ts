import type { EnqueueSource } from '@protean/core';

/** One delayed item waiting for its ready time. */
export interface WaitingItem<T> {
  readonly key: string;
  readonly item: T;
  readyAt: number;
  /** The source it is added with when ready; that of the earliest schedule. */
  source: EnqueueSource | undefined;
  /** Insertion order: items ready at the same instant leave in the order they came. */
  readonly seq: number;
  index: number;
}

/**
 * A binary min-heap of delayed items ordered by ready time, with one entry
 * per key. Scheduling a key that is already waiting keeps the earlier ready
 * time (client-go's delaying queue does the same). Internal to the package.
 */
export class ReadyTimeHeap<T> {
  private heap: WaitingItem<T>[] = [];
  private readonly byKey = new Map<string, WaitingItem<T>>();
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  /**
   * Schedules `item` for `readyAt`. A key already waiting moves to `readyAt`
   * (taking `source` along) only if that is earlier; a later time is ignored.
   */
  schedule(key: string, item: T, readyAt: number, source?: EnqueueSource): void {
    const existing = this.byKey.get(key);
    if (existing !== undefined) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        existing.source = source;
        this.siftUp(existing.index);
      }
      return;
    }
    const entry: WaitingItem<T> = { key, item, readyAt, source, seq: this.seq++, index: this.heap.length };
    this.heap.push(entry);
    this.byKey.set(key, entry);
    this.siftUp(entry.index);
  }

  /** Ready time of the item waiting under `key`, or `undefined` when none is. */
  readyAtOf(key: string): number | undefined {
    return this.byKey.get(key)?.readyAt;
  }

  /** Ready time of the earliest item, or `undefined` when empty. */
  earliest(): number | undefined {
    return this.heap[0]?.readyAt;
  }

  /** Removes and returns the earliest item if it is ready at `now`. */
  popReady(now: number): WaitingItem<T> | undefined {
    const top = this.heap[0];
    if (top === undefined || top.readyAt > now) return undefined;
    const last = this.heap.pop() as WaitingItem<T>;
    if (last !== top) {
      this.heap[0] = last;
      last.index = 0;
      this.siftDown(0);
    }
    this.byKey.delete(top.key);
    return top;
  }

  clear(): void {
    this.heap = [];
    this.byKey.clear();
  }

  private less(a: WaitingItem<T>, b: WaitingItem<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    const entry = heap[index] as WaitingItem<T>;
    while (index > 0) {
      const parentIndex = (index - 1) >>> 1;
      const parent = heap[parentIndex] as WaitingItem<T>;
      if (!this.less(entry, parent)) break;
      heap[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    heap[index] = entry;
    entry.index = index;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const n = heap.length;
    const entry = heap[index] as WaitingItem<T>;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.less(heap[right] as WaitingItem<T>, heap[left] as WaitingItem<T>)) child = right;
      const childEntry = heap[child] as WaitingItem<T>;
      if (!this.less(childEntry, entry)) break;
      heap[index] = childEntry;
      childEntry.index = index;
      index = child;
    }
    heap[index] = entry;
    entry.index = index;
  }
}
