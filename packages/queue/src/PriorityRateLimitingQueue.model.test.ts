import { describe, expect, it } from '@jest/globals';
import type { EnqueueSource } from '@protean/core';
import { FakeClock, Random } from '@protean/core/testing';
import { PriorityRateLimitingQueue } from './PriorityRateLimitingQueue.js';

const SOURCES: readonly EnqueueSource[] = ['live', 'initial-list', 'resync', 'takeover', 'requeue', 'retry'];
const LEVEL: Readonly<Record<EnqueueSource, number>> = { live: 1, retry: 1, 'initial-list': 2, resync: 2, takeover: 2, requeue: 2 };
const MAX_WAIT_MS = 1_000;

interface Queued {
  level: number;
  /** When it joined the queue: what aging counts from. */
  readonly at: number;
  /** Arrival order, ties of `at` broken by it. */
  readonly seq: number;
  /** Order within its level: taken at push and again at each move up. */
  laneSeq: number;
}

/**
 * A deliberately naive model of the specified behaviour: dirty/processing
 * sets plus queued items with a level; `get` scans everything for the oldest
 * item past the bound, else the lowest level, oldest in that level first.
 */
class PriorityQueueModel {
  private readonly queued = new Map<string, Queued>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Map<string, number>();
  private seq = 0;

  constructor(private readonly now: () => number) {}

  add(key: string, source: EnqueueSource): void {
    const level = LEVEL[source];
    const queued = this.queued.get(key);
    if (queued !== undefined) {
      if (level < queued.level) {
        queued.level = level;
        queued.laneSeq = this.seq++;
      }
    } else if (this.processing.has(key)) {
      this.dirty.set(key, Math.min(level, this.dirty.get(key) ?? Infinity));
    } else this.push(key, level);
  }

  get(): string | undefined {
    let best: [string, Queued] | undefined;
    let oldest: [string, Queued] | undefined;
    for (const entry of this.queued) {
      const q = entry[1];
      if (oldest === undefined || q.seq < oldest[1].seq) oldest = entry;
      if (best === undefined || q.level < best[1].level || (q.level === best[1].level && q.laneSeq < best[1].laneSeq)) best = entry;
    }
    if (oldest === undefined) return undefined;
    const [key] = this.now() - oldest[1].at >= MAX_WAIT_MS ? oldest : best!;
    this.queued.delete(key);
    this.processing.add(key);
    return key;
  }

  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const level = this.dirty.get(key);
    if (level === undefined) return;
    this.dirty.delete(key);
    this.push(key, level);
  }

  len(): number {
    return this.queued.size;
  }

  private push(key: string, level: number): void {
    const seq = this.seq++;
    this.queued.set(key, { level, at: this.now(), seq, laneSeq: seq });
  }
}

describe('PriorityRateLimitingQueue against a model', () => {
  it.each([1, 2, 3])('matches the model over 20,000 random adds, gets, dones and clock steps (seed %p)', async (seed) => {
    const random = new Random(seed);
    const next = (): number => random.next();
    const clock = new FakeClock();
    const q = new PriorityRateLimitingQueue<string>({ key: (s) => s, clock, maxWaitMs: MAX_WAIT_MS });
    const model = new PriorityQueueModel(() => clock.now());
    const holding: string[] = [];
    let divergence: string | undefined;
    for (let step = 0; step < 20_000 && divergence === undefined; step++) {
      const roll = next();
      if (roll < 0.45) {
        const key = `k${Math.floor(next() * 40)}`;
        const source = SOURCES[Math.floor(next() * SOURCES.length)]!;
        q.add(key, source);
        model.add(key, source);
      } else if (roll < 0.7 && q.len() > 0) {
        const result = await q.get();
        const got = result.shutdown ? 'shutdown' : result.item;
        const expected = model.get();
        if (got !== expected) divergence = `step ${step}: got ${got}, model says ${String(expected)}`;
        holding.push(got);
      } else if (roll < 0.95 && holding.length > 0) {
        const key = holding.splice(Math.floor(next() * holding.length), 1)[0]!;
        q.done(key);
        model.done(key);
      } else {
        clock.advance(Math.floor(next() * 200));
      }
      if (q.len() !== model.len()) divergence = `step ${step}: len ${q.len()}, model ${model.len()}`;
    }
    expect(divergence).toBeUndefined();
    expect(q.agedCount()).toBeGreaterThan(10);
  });
});
