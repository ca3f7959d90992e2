import { errorMessage, sleepOrWake, type Logger } from '@protean/core';
import { deadlineSignal, Waker } from '@protean/core/internal';
import { keepLeaseWatch, type Lease, type LeaseValidity } from '@protean/leader-election';
import { keysPerMember, type ShardAssignment } from './assignShards.js';
import type { HashRange } from './HashRange.js';
import { MemberLease } from './MemberLease.js';
import { MemberLeaseView } from './MemberLeaseView.js';
import { RangeHandoff, type ShardChange, type ShardChangeListener } from './RangeHandoff.js';
import {
  memberLeaseName,
  resolveShardMembershipOptions,
  SHARD_GROUP_LABEL,
  type ResolvedShardMembershipOptions,
  type ShardMembershipOptions,
} from './ShardMembershipOptions.js';
import type { ShardMembershipStatus, ShardTransition } from './ShardStatus.js';
import { ShardTransitionLog } from './ShardTransitionLog.js';

export type { ShardAssigner, ShardChange, ShardChangeListener } from './RangeHandoff.js';

/**
 * Membership of a shard group by one `coordination.k8s.io/v1` Lease per
 * replica, with leader election's record conventions (holder identity,
 * MicroTime renew time, duration in seconds, released with no holder on a
 * graceful stop), and exclusive handoff of ranges between members.
 *
 * Each replica renews its own lease every retry period, lists (and, when
 * the client can, watches) the group's leases by label, and computes
 * `assignShards(live members, keys)`. A member is live while its lease
 * names a holder and its record changed within its lease duration,
 * measured on this replica's clock from when it saw the change (clocks
 * across nodes need not agree; a lease seen for the first time is dated
 * by its `renewTime`, `maxClockSkewMs` younger, so a joiner agrees with
 * the survivors). Leases of members gone for good (released, or unchanged
 * for two lease durations) are deleted, guarded by their resourceVersion.
 *
 * Handoff: every lease carries, in the annotation
 * `sharding.protean.dev/held-ranges`, the ranges its holder holds (those
 * it may be reconciling and those it is about to start). A replica starts
 * a newly assigned range only when a LIST made after its lease was
 * written with that range shows no other member's unexpired lease
 * holding an overlapping one (released, or expired as above). It gives
 * up a range it is no longer assigned by telling the listener (stop
 * taking items, drain the passes in flight: `ShardGate.setRanges`),
 * waiting for the listener's promise, and only then writing its lease
 * without the range. A replica that could not renew for
 * `renewDeadlineMs` (counted from when its last successful renewal was
 * sent) tells the listener to stop everything at once, before any other
 * member can count its lease out (`leaseDurationMs` after that renewal).
 * The deadline is a {@link LeaseValidity} on the monotonic clock, checked
 * before every renewal too: a member that wakes from a freeze past it
 * drops every range first and claims again through the handoff.
 * So two members never reconcile the same range at the same time, as long
 * as the listener's promise settles only once nothing outside the ranges
 * it was given runs, and handlers stop within
 * `leaseDurationMs - renewDeadlineMs` of a renew failure.
 *
 * Easy to get wrong: each replica computes the assignment from its own
 * view, so during a membership change two replicas may briefly both be
 * assigned a range; the holds make the second wait, not reconcile. The
 * listener may be called again before its previous promise settled (a
 * renew failure does not wait for a drain); see {@link ShardMembership.run}.
 */
export class ShardMembership {
  readonly identity: string;
  readonly leaseName: string;
  private readonly settings: ResolvedShardMembershipOptions;
  private readonly log: Logger;
  private readonly view: MemberLeaseView;
  /** This member's own lease: joined, renewed with its holds, released. */
  private readonly lease: MemberLease;
  /**
   * Until when this member's ranges may be acted on: its last successful
   * renewal's start plus the renew deadline. Give it to the gate
   * (`new ShardGate({ key, validity: membership.validity })`) so passes
   * and writes stop at that instant, not when a timer gets to run.
   */
  readonly validity: LeaseValidity;
  /** Which ranges this member reconciles, waits for, drains and released. */
  private readonly handoff: RangeHandoff;
  private running = false;
  private watching = false;
  /** Cuts the wait between steps short; a wake while stepping makes the next wait return at once. */
  private readonly waker: Waker;
  private readonly transitions: ShardTransitionLog;

  constructor(options: ShardMembershipOptions) {
    this.settings = resolveShardMembershipOptions(options);
    const { clock, identity, group } = this.settings;
    this.identity = identity;
    this.leaseName = memberLeaseName(group, identity);
    this.waker = new Waker(clock, true);
    this.view = new MemberLeaseView(this.leaseName, this.settings.leaseDurationMs, this.settings.wallClock, this.settings.maxClockSkewMs);
    this.log = this.settings.logger.child({ component: 'sharding', group, identity });
    this.transitions = new ShardTransitionLog(this.log);
    this.lease = new MemberLease(this.settings, this.leaseName, this.log, {
      written: (holds) => this.handoff.publish(holds, clock.now()),
      expired: () => this.handoff.loseAll(clock.now()),
    });
    this.validity = this.lease.validity;
    this.handoff = new RangeHandoff({
      identity: this.identity,
      keys: this.settings.keys,
      assign: this.settings.assign,
      log: this.log,
      transitions: this.transitions,
      wake: () => this.waker.wake(),
    });
  }

  /** The live members in identity order, as of the last step. */
  members(): readonly string[] {
    return this.handoff.members();
  }

  /** The assignment of the last step; undefined before the first one or while no member is live. */
  assignment(): ShardAssignment | undefined {
    return this.handoff.assignment();
  }

  /** The ranges this replica may reconcile now (assigned, and no longer held by another member). */
  ranges(): readonly HashRange[] {
    return this.handoff.ranges();
  }

  /** A snapshot of this replica's membership and handoff state. */
  status(): ShardMembershipStatus {
    const now = this.settings.clock.now();
    const assignment = this.handoff.assignment();
    return {
      identity: this.identity,
      group: this.settings.group,
      ...this.handoff.snapshot(),
      renewing: this.validity.isValid(now),
      watching: this.watching,
      keysPerMember: assignment === undefined ? new Map() : keysPerMember(assignment, this.settings.keys()),
      transitions: this.transitions.counts(),
    };
  }

  /** Calls `listener` on every transition (also logged at info); returns the unsubscribe function. */
  onTransition(listener: (transition: ShardTransition) => void): () => void {
    return this.transitions.subscribe(listener);
  }

  /**
   * One round: renew this replica's lease (creating it at first) with the
   * ranges it holds, list the group, recompute the assignment, start the
   * assigned ranges no other member holds and give up those no longer
   * assigned. Resolves with the change when the ranges this replica may
   * reconcile changed, else undefined. Never rejects on a failed request
   * (logged).
   */
  async step(signal: AbortSignal): Promise<ShardChange | undefined> {
    // Past the renew deadline (a freeze, say) nothing is renewed: every range is dropped first, whatever a late renewal
    // would answer, and the write below joins again; a range comes back only through the handoff.
    const dropped = !this.validity.isValid() && this.handoff.hasRanges() ? this.handoff.loseAll(this.settings.clock.now()) : undefined;
    const holds = this.handoff.holds();
    const wrote = await this.lease.renew(signal, holds);
    let leases: Lease[] | undefined;
    const deadline = deadlineSignal(this.settings.clock, this.settings.renewDeadlineMs, 'listing the shard group', signal);
    try {
      leases = await this.settings.client.list(this.settings.namespace, `${SHARD_GROUP_LABEL}=${this.settings.group}`, deadline.signal);
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'listing the shard group failed');
    } finally {
      deadline.dispose();
    }
    const now = this.settings.clock.now();
    if (leases !== undefined) this.view.absorbList(leases, now);
    const others = this.view.liveOthers(this.identity, now);
    // Only a LIST made after this replica's lease was written proves a range free: a watch may lag.
    const change = this.handoff.recompute(others, leases !== undefined && wrote ? holds : [], this.validity.isValid(now), now);
    if (leases !== undefined) for (const lease of this.view.gone(now)) await this.removeStale(lease, signal);
    return change ?? dropped;
  }

  /**
   * Steps every retry period (and at once when the watch shows a change
   * that matters, or the handoff has something to publish) until `signal`
   * aborts; then gives every range up, keeps renewing until the listener
   * drained, and releases this replica's lease.
   *
   * `onChange` is called with every change of the ranges this replica may
   * reconcile. Its promise must settle only once nothing outside
   * `change.ranges` is being reconciled (`await gate.setRanges(ranges)`
   * does that): until then the lease keeps holding what it gave up. It may
   * be called again before its previous promise settled (a renew failure
   * stops everything at once); the latest call is the one in force, so an
   * earlier one must not undo it (see {@link applyShardChange}).
   */
  async run(signal: AbortSignal, onChange: ShardChangeListener = () => {}): Promise<void> {
    if (this.running) throw new Error(`ShardMembership.run: already running for ${this.leaseName}`);
    this.running = true;
    this.handoff.listener = onChange;
    this.lease.armDeadlines();
    const life = new AbortController();
    void this.watchGroup(life.signal);
    try {
      let startedAt = Number.NEGATIVE_INFINITY;
      const minGapMs = Math.min(20, this.settings.retryPeriodMs / 10);
      while (!signal.aborted) {
        // Woken steps come in quick succession during a handoff; never spin.
        const since = this.settings.clock.now() - startedAt;
        if (since < minGapMs) await sleepOrWake(this.settings.clock, minGapMs - since, signal).done;
        if (signal.aborted) break;
        startedAt = this.settings.clock.now();
        await this.step(life.signal);
        await this.waitOrWake(this.nextStepInMs(), signal);
      }
      this.handoff.stop();
      // Keep the lease (and its holds) alive until the passes drained, then hand everything back at once.
      while (this.handoff.holdsNow().length > 0) {
        await this.lease.renew(life.signal, this.handoff.holds());
        await this.waitOrWake(this.settings.retryPeriodMs, undefined);
      }
      await this.release();
    } finally {
      life.abort();
      this.lease.disarm();
      this.handoff.listener = undefined;
      this.running = false;
    }
  }

  /** Writes this replica's lease with no holder and no holds, so the others drop it at once. Call it only once nothing is reconciled. */
  async release(): Promise<void> {
    await this.lease.release();
  }

  private async watchGroup(stop: AbortSignal): Promise<void> {
    const watch = this.settings.client.watch?.bind(this.settings.client);
    if (watch === undefined) return;
    await keepLeaseWatch(stop, {
      clock: this.settings.clock,
      retryPeriodMs: this.settings.retryPeriodMs,
      leaseDurationMs: this.settings.leaseDurationMs,
      log: this.log,
      failedMessage: 'watching the shard group failed; polling every retry period',
      open: (signal) =>
        watch(
          this.settings.namespace,
          { labelSelector: `${SHARD_GROUP_LABEL}=${this.settings.group}` },
          (e) => {
            if (this.view.absorbEvent(e.type, e.lease, this.settings.clock.now())) this.wake();
          },
          signal,
        ),
      onWatching: (watching) => (this.watching = watching),
    });
  }

  private wake(): void {
    this.waker.wake();
  }

  private async waitOrWake(ms: number, signal: AbortSignal | undefined): Promise<void> {
    await this.waker.wait(ms, signal);
  }

  /** A retry period, or less when another member's lease expires sooner (its ranges can then be taken at once). */
  private nextStepInMs(): number {
    const now = this.settings.clock.now();
    let next = now + this.settings.retryPeriodMs;
    for (const o of this.view.liveOthers(this.identity, now)) if (o.expiresAtMs < next) next = o.expiresAtMs;
    return Math.max(0, next - now);
  }

  private async removeStale(lease: Lease, signal: AbortSignal): Promise<void> {
    const rv = lease.metadata.resourceVersion;
    if (rv === undefined) return;
    try {
      if (await this.settings.client.delete(this.settings.namespace, lease.metadata.name, rv, signal)) {
        this.view.forget(lease.metadata.name);
        this.log.info({ lease: lease.metadata.name }, 'removed the lease of a member gone for good');
      }
    } catch (err) {
      this.log.debug({ err: errorMessage(err), lease: lease.metadata.name }, 'removing a stale member lease failed');
    }
  }
}
