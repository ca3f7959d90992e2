import { errorMessage, type Logger } from '@protean/core';
import type { ShardAssignment } from './assignShards.js';
import type { HashRange } from './HashRange.js';
import type { LiveMember } from './MemberLeaseView.js';
import { describeRanges, intersectRanges, normalizeRanges, sameRanges, subtractRanges, unionRanges } from './rangeSet.js';
import type { ShardTransitionLog } from './ShardTransitionLog.js';

/** What {@link ShardMembership} hands to its listener when the ranges this replica may reconcile changed. */
export interface ShardChange {
  readonly members: readonly string[];
  readonly assignment: ShardAssignment;
  /**
   * The ranges this replica may reconcile from now on: those assigned to
   * it that no other member holds any more (empty while it is not a live
   * member). Narrower than the assignment while it waits for a hold.
   */
  readonly ranges: readonly HashRange[];
}

/** The listener's contract; see {@link ShardMembership.run}. */
export type ShardChangeListener = (change: ShardChange) => void | Promise<void>;

/** Computes which member gets which ranges from the live members and the keys present (default `assignShards`). */
export type ShardAssigner = (members: readonly string[], keys: readonly string[]) => ShardAssignment;

/** What {@link RangeHandoff} works with. */
export interface RangeHandoffDeps {
  readonly identity: string;
  readonly keys: () => readonly string[];
  readonly assign: ShardAssigner;
  readonly log: Logger;
  readonly transitions: ShardTransitionLog;
  /** Asks for another step soon: there are holds to publish. */
  readonly wake: () => void;
}

/** A listener call whose promise has not settled yet: until it does, the replica may still reconcile `ranges`. */
interface ListenerCall {
  readonly ranges: HashRange[];
}

/**
 * The exclusive handoff of hash ranges, as one member sees it: which ranges
 * it is assigned, reconciles, waits for, drains and has released, from the
 * live members and their holds that each step reads. No timer and no
 * request: {@link ShardMembership} feeds it what it read and writes what
 * {@link holds} says, so every transition can be tested by calling it.
 *
 * A range starts only when a LIST made after this member's lease was
 * written with it (`provenHolds`) shows no other member holding it. A range
 * no longer assigned is given to the listener to drain and leaves the holds
 * only once the listener's promise settled; every range is dropped at once
 * when the renew deadline passed ({@link loseAll}).
 */
export class RangeHandoff {
  private live: readonly string[] = [];
  private current: ShardAssignment | undefined;
  private assigned: HashRange[] = [];
  /** The ranges last given to the listener: what the replica reconciles from now on. */
  private active: HashRange[] = [];
  /** Assigned, not started: held in the lease, waiting until no other member holds them. */
  private pending: HashRange[] = [];
  private waitingFor: { range: HashRange; holders: string[] }[] = [];
  /** The ranges of the latest listener call that settled, and the calls after it that have not. */
  private settledRanges: HashRange[] = [];
  private unsettled: ListenerCall[] = [];
  /** Given up (drained or lost) and not yet published as released. */
  private givenUp: HashRange[] = [];
  /** The holds in this replica's lease as last written. */
  private published: HashRange[] = [];
  private lastWaiting = '';
  /** Called with every change of the ranges to reconcile; see {@link ShardMembership.run}. */
  listener: ShardChangeListener | undefined;

  constructor(private readonly deps: RangeHandoffDeps) {}

  members(): readonly string[] {
    return this.live;
  }

  assignment(): ShardAssignment | undefined {
    return this.current;
  }

  ranges(): readonly HashRange[] {
    return this.active;
  }

  /** The handoff part of `ShardMembership.status()`. */
  snapshot(): {
    members: readonly string[];
    assigned: readonly HashRange[];
    ranges: readonly HashRange[];
    waiting: readonly { range: HashRange; holders: readonly string[] }[];
    releasing: readonly HashRange[];
    published: readonly HashRange[];
  } {
    return {
      members: this.live,
      assigned: this.assigned,
      ranges: this.active,
      waiting: this.waitingFor,
      releasing: subtractRanges(this.holdsNow(), this.active),
      published: this.published,
    };
  }

  /** What the listener may still be reconciling: the latest settled call's ranges and every later call's. */
  holdsNow(): HashRange[] {
    return unionRanges(this.settledRanges, ...this.unsettled.map((c) => c.ranges));
  }

  /** What this replica's lease must say it holds: what may be reconciled, and what it is about to start. */
  holds(): HashRange[] {
    return unionRanges(this.holdsNow(), this.pending);
  }

  /** True when something is started or waiting to start. */
  hasRanges(): boolean {
    return this.active.length + this.pending.length > 0;
  }

  /**
   * One step's outcome: the live `others` (and this member when `renewing`)
   * get `assign(...)`; assigned ranges that `provenHolds` covers and no other
   * member holds start; ranges no longer assigned are given up. Returns the
   * change handed to the listener, if any.
   */
  recompute(others: readonly LiveMember[], provenHolds: readonly HashRange[], renewing: boolean, now: number): ShardChange | undefined {
    const { identity, log, transitions } = this.deps;
    const members = [...new Set([...others.map((o) => o.identity), ...(renewing ? [identity] : [])])].sort();
    if (members.join('\n') !== this.live.join('\n')) log.info({ members }, 'shard group members changed');
    this.live = members;
    this.current = members.length === 0 ? undefined : this.deps.assign(members, this.deps.keys());
    const target = normalizeRanges(renewing ? (this.current?.get(identity) ?? []) : []);
    if (!sameRanges(target, this.assigned)) log.info({ ranges: describeRanges(target) }, 'assigned ranges changed');
    this.assigned = target;
    const heldByOthers = unionRanges(...others.map((o) => o.holds));
    const kept = intersectRanges(this.active, target);
    const lost = subtractRanges(this.active, target);
    const wanted = subtractRanges(target, this.active);
    const free = subtractRanges(intersectRanges(wanted, provenHolds), heldByOthers);
    this.pending = subtractRanges(wanted, free);
    // Who held what is acquired now, as last seen waiting (empty when it was free at once).
    const previousHolders = [
      ...new Set(this.waitingFor.filter((w) => intersectRanges([w.range], free).length > 0).flatMap((w) => w.holders)),
    ].sort();
    this.noteWaiting(others, now);
    let change: ShardChange | undefined;
    const next = unionRanges(kept, free);
    if (!sameRanges(next, this.active)) {
      if (lost.length > 0) {
        this.givenUp = unionRanges(this.givenUp, lost);
        if (!renewing) transitions.record('lost', lost, [], now);
        else log.info({ ranges: describeRanges(lost) }, 'giving up ranges no longer assigned: draining their passes before releasing them');
      }
      if (free.length > 0) transitions.record('acquired', free, previousHolders, now);
      change = this.setActive(next);
    }
    // Holds to publish (a range to start, or one drained): step again at once rather than a retry period later.
    if (renewing && !sameRanges(this.holds(), this.published)) this.deps.wake();
    return change;
  }

  /** The renew deadline passed: stop reconciling everything now, before any other member can count this lease out. */
  loseAll(now: number): ShardChange | undefined {
    this.pending = [];
    this.waitingFor = [];
    this.assigned = [];
    let change: ShardChange | undefined;
    if (this.active.length > 0) {
      this.givenUp = unionRanges(this.givenUp, this.active);
      this.deps.transitions.record('lost', this.active, [], now);
      change = this.setActive([]);
    }
    this.deps.wake();
    return change;
  }

  /** Stopping: nothing new starts, and every range is given up to drain (logged when there was any). */
  stop(): void {
    this.pending = [];
    this.waitingFor = [];
    if (this.active.length > 0) {
      this.deps.log.info({ ranges: describeRanges(this.active) }, 'stopping: draining every range before releasing the member lease');
      this.setActive([]);
    }
  }

  /** Records what the lease now says it holds; ranges given up that left it are released. */
  publish(holds: HashRange[], now: number): void {
    const released = intersectRanges(subtractRanges(this.published, holds), this.givenUp);
    this.published = holds;
    if (released.length > 0) {
      this.givenUp = subtractRanges(this.givenUp, released);
      // To whom, as this replica's assignment says (empty when nobody is assigned it, e.g. after a lost renewal).
      const to = [...(this.current ?? new Map<string, readonly HashRange[]>())]
        .filter(([m, r]) => m !== this.deps.identity && intersectRanges(r, released).length > 0)
        .map(([m]) => m)
        .sort();
      this.deps.transitions.record('released', released, to, now);
    }
  }

  /** Hands `ranges` to the listener; until its promise settles the replica may still reconcile what it had. */
  private setActive(ranges: HashRange[]): ShardChange {
    this.active = ranges;
    const change: ShardChange = { members: this.live, assignment: this.current ?? new Map(), ranges };
    const call: ListenerCall = { ranges };
    this.unsettled.push(call);
    let result: void | Promise<void>;
    try {
      result = this.listener?.(change);
    } catch (err) {
      result = Promise.reject(err);
    }
    void Promise.resolve(result)
      .catch((err: unknown) => this.deps.log.error({ err: errorMessage(err) }, 'the shard change listener failed'))
      .then(() => this.settle(call));
    return change;
  }

  private settle(call: ListenerCall): void {
    const i = this.unsettled.indexOf(call);
    if (i < 0) return; // a later call settled first and superseded it
    this.settledRanges = call.ranges;
    this.unsettled = this.unsettled.slice(i + 1);
    if (!sameRanges(this.holds(), this.published)) this.deps.wake();
  }

  private noteWaiting(others: readonly LiveMember[], now: number): void {
    this.waitingFor = this.pending.map((range) => ({
      range,
      holders: others
        .filter((o) => intersectRanges(o.holds, [range]).length > 0)
        .map((o) => o.identity)
        .sort(),
    }));
    const key = JSON.stringify(this.waitingFor.map((w) => [describeRanges([w.range]), w.holders]));
    if (key === this.lastWaiting) return;
    this.lastWaiting = key;
    const holders = [...new Set(this.waitingFor.flatMap((w) => w.holders))].sort();
    if (holders.length > 0) this.deps.transitions.record('waiting', this.pending, holders, now);
  }
}
