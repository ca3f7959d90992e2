import { realClock, type Clock, type EnqueueSource, type GaugeMetric } from '@protean/core';
import type { QueuedItem, QueueStore } from './QueueStore.js';
import {
  checkMaxWait,
  DEFAULT_MAX_WAIT_MS,
  QUEUE_PRIORITIES,
  sourceLevels,
  type QueuePriority,
  type SourcePriorities,
} from './sourcePriorities.js';

/** Options of {@link PriorityQueueStore}. */
export interface PriorityQueueStoreOptions {
  /** Time of the waits that aging bounds; default core's `realClock`. */
  readonly clock?: Clock;
  /**
   * An item queued this long (ms) or longer is handed out before every
   * younger item, whatever the priorities; default {@link DEFAULT_MAX_WAIT_MS}
   * (30 s). `Infinity` turns aging off: strict priority, where a low item
   * can wait forever under a steady stream of more urgent ones.
   */
  readonly maxWaitMs?: number;
  /** Priority per enqueue source over {@link DEFAULT_SOURCE_PRIORITIES}. */
  readonly priorities?: SourcePriorities;
}

// One stored entry, linked twice: into its priority's lane and into the
// arrival order of all stored entries. Both are doubly linked, so moving an
// entry up a lane and taking an aged entry from the middle of a lane are O(1).
class Node<T> {
  lanePrev: Node<T> | undefined;
  laneNext: Node<T> | undefined;
  agePrev: Node<T> | undefined;
  ageNext: Node<T> | undefined;
  constructor(
    readonly entry: QueuedItem<T>,
    readonly queuedAt: number,
    public level: number,
  ) {}
}

class Lane<T> {
  head: Node<T> | undefined;
  tail: Node<T> | undefined;
  size = 0;

  append(node: Node<T>): void {
    node.lanePrev = this.tail;
    node.laneNext = undefined;
    if (this.tail === undefined) this.head = node;
    else this.tail.laneNext = node;
    this.tail = node;
    this.size++;
  }

  remove(node: Node<T>): void {
    if (node.lanePrev === undefined) this.head = node.laneNext;
    else node.lanePrev.laneNext = node.laneNext;
    if (node.laneNext === undefined) this.tail = node.lanePrev;
    else node.laneNext.lanePrev = node.lanePrev;
    node.lanePrev = node.laneNext = undefined;
    this.size--;
  }
}

/**
 * A {@link QueueStore} that hands out the most urgent queued item first,
 * with a bound on every item's wait. Each enqueue source maps to a priority
 * (`high`, `normal`, `low`; by default a live change is `normal`, an initial
 * list, resync, takeover or requeue `low`); each priority is a FIFO.
 *
 * Aging: `shift` first looks at the oldest queued item; if it has waited
 * `maxWaitMs` or longer it is handed out, whatever its priority. Once an
 * item has waited `maxWaitMs`, only items queued before it still go first,
 * so its wait is at most `maxWaitMs` plus the time to hand out the items
 * that were already queued when it arrived, under any load.
 *
 * An item added again while queued from a more urgent source moves to the
 * back of that source's FIFO and keeps its arrival time (its wait so far
 * still counts towards the bound); from a less urgent source nothing moves.
 * O(1) per operation.
 *
 * Easy to get wrong: the wait counts from when the item joined this store;
 * a delayed item (`addAfter`, `addRateLimited`) joins when its delay ends.
 */
export class PriorityQueueStore<T> implements QueueStore<QueuedItem<T>> {
  private readonly clock: Clock;
  private readonly maxWaitMs: number;
  private readonly levels: Readonly<Record<string, number>>;
  private readonly liveLevel: number;
  private readonly lanes = QUEUE_PRIORITIES.map(() => new Lane<T>());
  private readonly byKey = new Map<string, Node<T>>();
  private oldest: Node<T> | undefined;
  private newest: Node<T> | undefined;
  private aged = 0;
  private gauges: readonly GaugeMetric[] | undefined;

  /** @throws QueueArgumentError for a bad `maxWaitMs` or `priorities`. */
  constructor(options: PriorityQueueStoreOptions = {}) {
    const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    checkMaxWait('PriorityQueueStore', maxWaitMs);
    this.clock = options.clock ?? realClock;
    this.maxWaitMs = maxWaitMs;
    this.levels = sourceLevels('PriorityQueueStore', options.priorities);
    this.liveLevel = this.levels['live']!;
  }

  get size(): number {
    return this.byKey.size;
  }

  push(entry: QueuedItem<T>): void {
    const node = new Node(entry, this.clock.now(), this.levelOf(entry.source));
    this.byKey.set(entry.key, node);
    this.lanes[node.level]!.append(node);
    this.gauges?.[node.level]!.inc();
    node.agePrev = this.newest;
    if (this.newest === undefined) this.oldest = node;
    else this.newest.ageNext = node;
    this.newest = node;
  }

  shift(): QueuedItem<T> | undefined {
    const oldest = this.oldest;
    if (oldest === undefined) return undefined;
    let node = oldest;
    for (const lane of this.lanes) {
      if (lane.head !== undefined) {
        node = lane.head;
        break;
      }
    }
    if (node !== oldest && this.maxWaitMs !== Infinity && this.clock.now() - oldest.queuedAt >= this.maxWaitMs) {
      node = oldest;
      this.aged++;
    }
    this.remove(node);
    return node.entry;
  }

  addedAgain(entry: QueuedItem<T>, source: EnqueueSource | undefined, queued: boolean): void {
    const level = this.levelOf(source);
    if (level >= this.levelOf(entry.source)) return;
    entry.source = source;
    if (!queued) return;
    const node = this.byKey.get(entry.key);
    if (node === undefined) return;
    this.lanes[node.level]!.remove(node);
    this.gauges?.[node.level]!.dec();
    node.level = level;
    this.lanes[level]!.append(node);
    this.gauges?.[level]!.inc();
  }

  /** Number of queued items at `priority`. */
  priorityLen(priority: QueuePriority): number {
    return this.lanes[QUEUE_PRIORITIES.indexOf(priority)]?.size ?? 0;
  }

  /** How long the oldest queued item has waited (ms), 0 when empty. */
  oldestWaitMs(): number {
    return this.oldest === undefined ? 0 : this.clock.now() - this.oldest.queuedAt;
  }

  /** Items handed out ahead of their priority order because they had waited `maxWaitMs`. */
  agedCount(): number {
    return this.aged;
  }

  /**
   * Reports the depth of each priority to `gauges` (indexed like
   * {@link QUEUE_PRIORITIES}) from now on; call before the first push.
   */
  reportDepthTo(gauges: readonly GaugeMetric[]): void {
    this.gauges = gauges;
  }

  private levelOf(source: EnqueueSource | undefined): number {
    return (source === undefined ? undefined : this.levels[source]) ?? this.liveLevel;
  }

  private remove(node: Node<T>): void {
    this.lanes[node.level]!.remove(node);
    this.gauges?.[node.level]!.dec();
    this.byKey.delete(node.entry.key);
    if (node.agePrev === undefined) this.oldest = node.ageNext;
    else node.agePrev.ageNext = node.ageNext;
    if (node.ageNext === undefined) this.newest = node.agePrev;
    else node.ageNext.agePrev = node.agePrev;
    node.agePrev = node.ageNext = undefined;
  }
}
