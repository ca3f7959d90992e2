import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import type { HashRange } from './HashRange.js';
import type { LiveMember } from './MemberLeaseView.js';
import { RangeHandoff, type ShardChange } from './RangeHandoff.js';
import { ShardTransitionLog } from './ShardTransitionLog.js';

// Two halves of a small space are enough: the handoff only compares ranges.
const LOW: HashRange = { start: 0n, end: 100n };
const HIGH: HashRange = { start: 100n, end: 200n };
const ALL: HashRange = { start: 0n, end: 200n };

/** Alone, "me" gets everything; with "you", "me" keeps LOW and "you" gets HIGH. */
const assign = (members: readonly string[]): ReadonlyMap<string, readonly HashRange[]> =>
  members.length === 1
    ? new Map([[members[0]!, [ALL]]])
    : new Map([
        ['me', [LOW]],
        ['you', [HIGH]],
      ]);

function rig() {
  const changes: ShardChange[] = [];
  let release: (() => void) | undefined;
  let wakes = 0;
  const transitions = new ShardTransitionLog(silentLogger());
  const handoff = new RangeHandoff({ identity: 'me', keys: () => [], assign, log: silentLogger(), transitions, wake: () => wakes++ });
  handoff.listener = (change) => {
    changes.push(change);
    return new Promise<void>((resolve) => (release = resolve));
  };
  return { handoff, changes, transitions, drain: () => release?.(), wakes: () => wakes };
}

const you = (holds: HashRange[]): LiveMember => ({ identity: 'you', holds, expiresAtMs: 10_000 });
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('RangeHandoff', () => {
  it('starts an assigned range only once a list made after its hold was written proves it free', () => {
    const { handoff, changes } = rig();
    expect(handoff.recompute([], [], true, 0)).toBeUndefined();
    expect(handoff.holds()).toEqual([ALL]);
    expect(handoff.ranges()).toEqual([]);
    const change = handoff.recompute([], handoff.holds(), true, 1);
    expect(change?.ranges).toEqual([ALL]);
    expect(changes.map((c) => c.ranges)).toEqual([[ALL]]);
  });

  it('waits while another live member holds an assigned range, naming it, and starts when the hold is gone', () => {
    const { handoff, transitions } = rig();
    handoff.recompute([you([HIGH])], [ALL], true, 0);
    // Alone in its own view (you are live but assigned by the two-member split), "me" gets LOW at once and waits for nothing.
    expect(handoff.ranges()).toEqual([LOW]);
    const crowded = rig();
    crowded.handoff.recompute([you([LOW])], [LOW], true, 0);
    expect(crowded.handoff.ranges()).toEqual([]);
    expect(crowded.handoff.snapshot().waiting).toEqual([{ range: LOW, holders: ['you'] }]);
    expect(crowded.transitions.counts().waiting).toBe(1);
    crowded.handoff.recompute([you([])], [LOW], true, 1);
    expect(crowded.handoff.ranges()).toEqual([LOW]);
    expect(crowded.transitions.counts().acquired).toBe(1);
    expect(transitions.counts().waiting).toBe(0);
  });

  it('keeps holding a range it gave up until the listener drained it, then releases it with the next write', async () => {
    const { handoff, changes, drain, transitions } = rig();
    handoff.recompute([], [ALL], true, 0);
    drain();
    await settle();
    // "you" joins: "me" is assigned LOW only and gives HIGH up.
    handoff.recompute([you([])], [ALL], true, 1);
    expect(changes.at(-1)?.ranges).toEqual([LOW]);
    expect(handoff.holds()).toEqual([ALL]);
    expect(handoff.snapshot().releasing).toEqual([HIGH]);
    handoff.publish(handoff.holds(), 2);
    expect(transitions.counts().released).toBe(0);
    drain();
    await settle();
    expect(handoff.holds()).toEqual([LOW]);
    handoff.publish(handoff.holds(), 3);
    expect(transitions.counts().released).toBe(1);
  });

  it('drops every range at once when the renew deadline passed, without waiting for a drain', () => {
    const { handoff, changes, transitions, wakes } = rig();
    handoff.recompute([], [ALL], true, 0);
    const before = wakes();
    const change = handoff.loseAll(5);
    expect(change?.ranges).toEqual([]);
    expect(changes.map((c) => c.ranges)).toEqual([[ALL], []]);
    expect(handoff.hasRanges()).toBe(false);
    expect(transitions.counts().lost).toBe(1);
    expect(wakes()).toBeGreaterThan(before);
  });

  it('assigns nothing to itself while not renewing', () => {
    const { handoff } = rig();
    handoff.recompute([you([])], [ALL], false, 0);
    expect(handoff.members()).toEqual(['you']);
    expect(handoff.snapshot().assigned).toEqual([]);
    expect(handoff.ranges()).toEqual([]);
  });
});
