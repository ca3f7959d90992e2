import { describe, expect, it } from '@jest/globals';
import { Random } from '@protean/core/testing';
import { FairRateLimitingQueue } from './FairRateLimitingQueue.js';

/** Strings as items, grouped by their first letter. */
function lettersQueue(): FairRateLimitingQueue<string> {
  return new FairRateLimitingQueue<string>({ key: (s) => s, group: (s) => s.charAt(0) });
}

/**
 * A deliberately naive model of the specified behaviour: dirty/processing
 * sets plus per-group FIFOs served in turn, emptied groups leaving the turn
 * order and rejoining at its end.
 */
class FairQueueModel {
  private readonly lanes = new Map<string, string[]>();
  private readonly turns: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();

  add(key: string): void {
    if (this.processing.has(key)) this.dirty.add(key);
    else if (!this.queued.has(key)) this.push(key);
  }

  get(): string | undefined {
    const group = this.turns.shift();
    if (group === undefined) return undefined;
    const lane = this.lanes.get(group)!;
    const key = lane.shift()!;
    if (lane.length > 0) this.turns.push(group);
    else this.lanes.delete(group);
    this.queued.delete(key);
    this.processing.add(key);
    return key;
  }

  done(key: string): void {
    if (!this.processing.delete(key)) return;
    if (this.dirty.delete(key)) this.push(key);
  }

  len(): number {
    return this.queued.size;
  }

  private push(key: string): void {
    const group = key.charAt(0);
    let lane = this.lanes.get(group);
    if (lane === undefined) {
      lane = [];
      this.lanes.set(group, lane);
      this.turns.push(group);
    }
    lane.push(key);
    this.queued.add(key);
  }
}

describe('FairRateLimitingQueue against a model', () => {
  it.each([1, 2, 3])('matches the model over 20,000 random adds, gets and dones (seed %p)', async (seed) => {
    // Seeded, so a failure replays exactly.
    const random = new Random(seed);
    const next = (): number => random.next();
    const q = lettersQueue();
    const model = new FairQueueModel();
    const holding: string[] = [];
    let previousGroup: string | undefined;
    // Whether another group was queued when `previousGroup` was served.
    let othersWereWaiting = false;
    let rotationsChecked = 0;
    // Plain comparisons in the loop (20,000 expect() calls are slow); the first
    // divergence is reported with its step.
    let divergence: string | undefined;
    for (let step = 0; step < 20_000 && divergence === undefined; step++) {
      const roll = next();
      if (roll < 0.5) {
        // Few keys over six groups of different popularity: many duplicates and re-adds while processing.
        const group = 'abcdef'.charAt(Math.floor(next() ** 2 * 6));
        const key = `${group}${Math.floor(next() * 30)}`;
        q.add(key);
        model.add(key);
      } else if (roll < 0.8 && q.len() > 0) {
        const othersWaiting = q.groupCount() > 1;
        const result = await q.get();
        const expected = model.get();
        const got = result.shutdown ? 'shutdown' : result.item;
        if (got !== expected) divergence = `step ${step}: got ${got}, model says ${String(expected)}`;
        const group = got.charAt(0);
        // Round robin: a group is not served twice in a row when another group was
        // already waiting (a group that joins later rightly queues behind it).
        if (othersWereWaiting) {
          rotationsChecked++;
          if (group === previousGroup) divergence = `step ${step}: group ${group} served twice while others waited`;
        }
        previousGroup = group;
        othersWereWaiting = othersWaiting;
        holding.push(got);
      } else if (holding.length > 0) {
        const key = holding.splice(Math.floor(next() * holding.length), 1)[0]!;
        q.done(key);
        model.done(key);
      }
      if (q.len() !== model.len()) divergence = `step ${step}: len ${q.len()}, model ${model.len()}`;
    }
    expect(divergence).toBeUndefined();
    expect(rotationsChecked).toBeGreaterThan(1_000);
  });
});
