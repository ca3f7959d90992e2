import type { QueuedItem, QueueStore } from './QueueStore.js';
import { RingBuffer } from './RingBuffer.js';

/** Names the group of a queue item; see {@link RoundRobinQueueStore}. */
export type GroupFunc<T> = (item: T) => string;

// The queued items of one group, oldest first.
class Lane<T> {
  readonly items = new RingBuffer<QueuedItem<T>>();
  constructor(readonly group: string) {}
}

/**
 * A {@link QueueStore} that keeps one FIFO per group and serves the groups
 * in turn: `shift` takes the oldest item of the group at the head of the
 * rotation and moves that group to the back. A group joins the rotation at
 * the back when it gets its first queued item and leaves it when its last
 * one is taken, so only groups with queued items take turns. An item is
 * therefore handed out after at most (active groups) x (its place in its
 * group) shifts, whatever the other groups hold. O(1) per push and shift.
 *
 * Easy to get wrong: `group` must be a pure function of the item's identity
 * and must not throw (the queue calls it while moving items between its
 * internal sets); {@link FairRateLimitingQueue} checks it at `add` time.
 */
export class RoundRobinQueueStore<T> implements QueueStore<QueuedItem<T>> {
  // Groups with at least one queued item; an emptied group is dropped so a
  // stream of short-lived groups (e.g. one per namespace) leaves nothing behind.
  private readonly lanes = new Map<string, Lane<T>>();
  private readonly rotation = new RingBuffer<Lane<T>>();
  private count = 0;

  constructor(private readonly group: GroupFunc<T>) {}

  get size(): number {
    return this.count;
  }

  push(entry: QueuedItem<T>): void {
    const group = this.group(entry.item);
    let lane = this.lanes.get(group);
    if (lane === undefined) {
      lane = new Lane<T>(group);
      this.lanes.set(group, lane);
      this.rotation.push(lane);
    }
    lane.items.push(entry);
    this.count++;
  }

  shift(): QueuedItem<T> | undefined {
    const lane = this.rotation.shift();
    if (lane === undefined) return undefined;
    const entry = lane.items.shift();
    this.count--;
    if (lane.items.size > 0) this.rotation.push(lane);
    else this.lanes.delete(lane.group);
    return entry;
  }

  /** Number of groups with queued items: the groups taking turns. */
  groupCount(): number {
    return this.lanes.size;
  }

  /** Number of queued items of `group`. */
  groupLen(group: string): number {
    return this.lanes.get(group)?.items.size ?? 0;
  }

  /** The groups with queued items, in the order they will next be served. */
  groups(): string[] {
    return Array.from(this.rotation.values(), (lane) => lane.group);
  }
}
