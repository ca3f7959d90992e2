import { errorMessage, type Logger } from '@protean/core';
import type { HashRange } from './HashRange.js';
import { describeRanges } from './rangeSet.js';
import type { ShardTransition, ShardTransitionKind } from './ShardStatus.js';

/** The transitions of one shard member: each logged at info with its ranges and the other members, counted, and told to listeners. */
export class ShardTransitionLog {
  private readonly tally: Record<ShardTransitionKind, number> = { acquired: 0, waiting: 0, released: 0, lost: 0 };
  private readonly listeners = new Set<(t: ShardTransition) => void>();

  constructor(private readonly log: Logger) {}

  /** Transitions so far, by kind. */
  counts(): Record<ShardTransitionKind, number> {
    return { ...this.tally };
  }

  /** Calls `listener` on every transition from now on; returns the unsubscribe function. */
  subscribe(listener: (t: ShardTransition) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(kind: ShardTransitionKind, ranges: readonly HashRange[], others: readonly string[], atMs: number): void {
    this.tally[kind]++;
    const described = describeRanges(ranges);
    if (kind === 'acquired')
      this.log.info(
        { ranges: described, from: others },
        others.length === 0
          ? 'acquired ranges: no other member holds them; reconciling'
          : `acquired ranges from ${others.join(', ')}: their hold is gone; reconciling`,
      );
    else if (kind === 'waiting')
      this.log.info({ ranges: described, holders: others }, `waiting for ${others.join(', ')}'s hold on assigned ranges`);
    else if (kind === 'released')
      this.log.info(
        { ranges: described, to: others },
        `released ranges${others.length === 0 ? '' : ` to ${others.join(', ')}`}: their passes drained`,
      );
    else this.log.info({ ranges: described }, 'lost ranges: could not renew the member lease for the renew deadline; stopped reconciling');
    const t: ShardTransition = { kind, ranges, others, atMs };
    for (const l of this.listeners) {
      try {
        l(t);
      } catch (err) {
        this.log.warn({ err: errorMessage(err) }, 'a shard transition listener threw');
      }
    }
  }
}
