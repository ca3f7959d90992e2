const MIN_CAPACITY = 16;

/**
 * A growable FIFO on a power-of-two circular array: `push` and `shift` are
 * O(1) amortised (an `Array#shift` is O(n), which a million-item queue
 * cannot afford). It shrinks again after a burst so a drained queue does not
 * keep its peak memory. Internal to the package.
 */
export class RingBuffer<E> {
  private slots: (E | undefined)[];
  private head = 0;
  private count = 0;
  private mask: number;

  constructor() {
    this.slots = new Array<E | undefined>(MIN_CAPACITY).fill(undefined);
    this.mask = MIN_CAPACITY - 1;
  }

  get size(): number {
    return this.count;
  }

  push(value: E): void {
    if (this.count === this.slots.length) this.resize(this.slots.length * 2);
    this.slots[(this.head + this.count) & this.mask] = value;
    this.count++;
  }

  shift(): E | undefined {
    if (this.count === 0) return undefined;
    const value = this.slots[this.head];
    // Release the reference so a handed-out item can be collected.
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.count--;
    const capacity = this.slots.length;
    if (capacity > MIN_CAPACITY && this.count < capacity >>> 2) this.resize(capacity >>> 1);
    return value;
  }

  /** The values from oldest to newest, without removing them. */
  *values(): IterableIterator<E> {
    for (let i = 0; i < this.count; i++) yield this.slots[(this.head + i) & this.mask] as E;
  }

  clear(): void {
    this.slots = new Array<E | undefined>(MIN_CAPACITY).fill(undefined);
    this.mask = MIN_CAPACITY - 1;
    this.head = 0;
    this.count = 0;
  }

  private resize(capacity: number): void {
    const next = new Array<E | undefined>(capacity).fill(undefined);
    for (let i = 0; i < this.count; i++) next[i] = this.slots[(this.head + i) & this.mask];
    this.slots = next;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
