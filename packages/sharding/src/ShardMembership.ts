import {
  deadlineSignal,
  errorMessage,
  realClock,
  silentLogger,
  sleepOrWake,
  Waker,
  type Clock,
  type Logger,
  type TimerHandle,
} from '@protean/core';
import { formatMicroTime, keepLeaseWatch, LeaseRequestError, LeaseValidity, type Lease } from '@protean/leader-election';
import { assignShards, keysPerMember, type ShardAssignment } from './assignShards.js';
import type { HashRange } from './HashRange.js';
import type { MemberLeaseClient } from './MemberLeaseClient.js';
import { MemberLeaseView, type LiveMember } from './MemberLeaseView.js';
import { withHolds } from './rangeClaims.js';
import { describeRanges, intersectRanges, normalizeRanges, sameRanges, subtractRanges, unionRanges } from './rangeSet.js';
import { ShardingConfigError } from './ShardingConfigError.js';
import { memberLeaseName, SHARD_GROUP_LABEL, type ShardMembershipOptions } from './ShardMembershipOptions.js';
import type { ShardMembershipStatus, ShardTransition } from './ShardStatus.js';
import { ShardTransitionLog } from './ShardTransitionLog.js';

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

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The listener's contract; see {@link ShardMembership.run}. */
export type ShardChangeListener = (change: ShardChange) => void | Promise<void>;

/** A listener call whose promise has not settled yet: until it does, the replica may still reconcile `ranges`. */
interface ListenerCall {
  readonly ranges: HashRange[];
}

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
  private readonly client: MemberLeaseClient;
  private readonly namespace: string;
  private readonly group: string;
  private readonly keys: () => readonly string[];
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly maxClockSkewMs: number;
  private readonly clock: Clock;
  private readonly wallClock: () => number;
  private readonly log: Logger;
  private readonly view: MemberLeaseView;
  private own: Lease | undefined;
  /**
   * Until when this member's ranges may be acted on: its last successful
   * renewal's start plus the renew deadline. Give it to the gate
   * (`new ShardGate({ key, validity: membership.validity })`) so passes
   * and writes stop at that instant, not when a timer gets to run.
   */
  readonly validity: LeaseValidity;
  private deadlineTimer: TimerHandle | undefined;
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
  private listener: ShardChangeListener | undefined;
  private running = false;
  private watching = false;
  /** Cuts the wait between steps short; a wake while stepping makes the next wait return at once. */
  private readonly waker: Waker;
  private lastWaiting = '';
  private readonly transitions: ShardTransitionLog;

  constructor(options: ShardMembershipOptions) {
    if (options?.client === undefined) throw new ShardingConfigError('client: is required');
    if (typeof options.namespace !== 'string' || !DNS_LABEL.test(options.namespace)) {
      throw new ShardingConfigError(`namespace: must be a DNS label, got ${JSON.stringify(options.namespace)}`);
    }
    if (typeof options.group !== 'string' || !DNS_LABEL.test(options.group) || options.group.length > 40) {
      throw new ShardingConfigError(`group: must be a DNS label of at most 40 characters, got ${JSON.stringify(options.group)}`);
    }
    if (typeof options.identity !== 'string' || options.identity === '')
      throw new ShardingConfigError(`identity: must be a non-empty string, got ${JSON.stringify(options.identity)}`);
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    // A value the caller left out is named as the default, so a bound broken by a default is not a puzzle.
    const shown = (value: number, given: number | undefined): string => `${value}${given === undefined ? ' (the default)' : ''}`;
    const lease = shown(this.leaseDurationMs, options.leaseDurationMs);
    const renew = shown(this.renewDeadlineMs, options.renewDeadlineMs);
    if (this.leaseDurationMs % 1000 !== 0 || this.leaseDurationMs <= 0) {
      throw new ShardingConfigError(`leaseDurationMs: must be a positive number of whole seconds, got ${lease}`);
    }
    if (!(this.renewDeadlineMs < this.leaseDurationMs)) {
      throw new ShardingConfigError(`renewDeadlineMs: must be less than leaseDurationMs (${lease}), got ${renew}`);
    }
    if (!(this.retryPeriodMs > 0 && this.retryPeriodMs < this.renewDeadlineMs)) {
      throw new ShardingConfigError(
        `retryPeriodMs: must be positive and less than renewDeadlineMs (${renew}), got ${shown(this.retryPeriodMs, options.retryPeriodMs)}`,
      );
    }
    this.maxClockSkewMs = options.maxClockSkewMs ?? 2_000;
    if (!(this.maxClockSkewMs >= 0 && this.maxClockSkewMs <= this.leaseDurationMs)) {
      throw new ShardingConfigError(
        `maxClockSkewMs: must be between 0 and leaseDurationMs (${lease}), got ${shown(this.maxClockSkewMs, options.maxClockSkewMs)}`,
      );
    }
    this.client = options.client;
    this.namespace = options.namespace;
    this.group = options.group;
    this.identity = options.identity;
    this.keys = options.keys ?? (() => []);
    this.clock = options.clock ?? realClock;
    this.wallClock = options.wallClock ?? Date.now;
    this.leaseName = memberLeaseName(options.group, options.identity);
    this.validity = new LeaseValidity(
      this.clock,
      this.renewDeadlineMs,
      `shard ranges of member ${this.identity} (lease ${this.namespace}/${this.leaseName})`,
    );
    this.waker = new Waker(this.clock, true);
    this.view = new MemberLeaseView(this.leaseName, this.leaseDurationMs, this.wallClock, this.maxClockSkewMs);
    this.log = (options.logger ?? silentLogger()).child({ component: 'sharding', group: this.group, identity: this.identity });
    this.transitions = new ShardTransitionLog(this.log);
  }

  /** The live members in identity order, as of the last step. */
  members(): readonly string[] {
    return this.live;
  }

  /** The assignment of the last step; undefined before the first one or while no member is live. */
  assignment(): ShardAssignment | undefined {
    return this.current;
  }

  /** The ranges this replica may reconcile now (assigned, and no longer held by another member). */
  ranges(): readonly HashRange[] {
    return this.active;
  }

  /** A snapshot of this replica's membership and handoff state. */
  status(): ShardMembershipStatus {
    const now = this.clock.now();
    const keys = this.keys();
    return {
      identity: this.identity,
      group: this.group,
      members: this.live,
      assigned: this.assigned,
      ranges: this.active,
      waiting: this.waitingFor,
      releasing: subtractRanges(this.holdsNow(), this.active),
      published: this.published,
      renewing: this.isRenewing(now),
      watching: this.watching,
      keysPerMember: this.current === undefined ? new Map() : keysPerMember(this.current, keys),
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
    const dropped = !this.validity.isValid() && this.active.length + this.pending.length > 0 ? this.loseAll() : undefined;
    const holds = this.holds();
    const wrote = await this.renew(signal, holds);
    let leases: Lease[] | undefined;
    const deadline = deadlineSignal(this.clock, this.renewDeadlineMs, 'listing the shard group', signal);
    try {
      leases = await this.client.list(this.namespace, `${SHARD_GROUP_LABEL}=${this.group}`, deadline.signal);
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'listing the shard group failed');
    } finally {
      deadline.dispose();
    }
    const now = this.clock.now();
    if (leases !== undefined) this.view.absorbList(leases, now);
    const others = this.view.liveOthers(this.identity, now);
    // Only a LIST made after this replica's lease was written proves a range free: a watch may lag.
    const change = this.recompute(others, leases !== undefined && wrote ? holds : [], now);
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
    this.listener = onChange;
    const life = new AbortController();
    void this.watchGroup(life.signal);
    try {
      let startedAt = Number.NEGATIVE_INFINITY;
      const minGapMs = Math.min(20, this.retryPeriodMs / 10);
      while (!signal.aborted) {
        // Woken steps come in quick succession during a handoff; never spin.
        const since = this.clock.now() - startedAt;
        if (since < minGapMs) await sleepOrWake(this.clock, minGapMs - since, signal).done;
        if (signal.aborted) break;
        startedAt = this.clock.now();
        await this.step(life.signal);
        await this.waitOrWake(this.nextStepInMs(), signal);
      }
      this.pending = [];
      this.waitingFor = [];
      if (this.active.length > 0) {
        this.log.info({ ranges: describeRanges(this.active) }, 'stopping: draining every range before releasing the member lease');
        this.setActive([]);
      }
      // Keep the lease (and its holds) alive until the passes drained, then hand everything back at once.
      while (this.holdsNow().length > 0) {
        await this.renew(life.signal, this.holds());
        await this.waitOrWake(this.retryPeriodMs, undefined);
      }
      await this.release();
    } finally {
      life.abort();
      this.clearDeadline();
      this.listener = undefined;
      this.running = false;
    }
  }

  /** Writes this replica's lease with no holder and no holds, so the others drop it at once. Call it only once nothing is reconciled. */
  async release(): Promise<void> {
    const signal = new AbortController().signal;
    // Twice at most: the lease we wrote last may be stale (a renewal cut short by the stop may have landed).
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const lease = attempt === 0 && this.own !== undefined ? this.own : await this.client.get(this.namespace, this.leaseName, signal);
        if (lease === undefined || (lease.spec?.holderIdentity ?? '') !== this.identity) return;
        const spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: formatMicroTime(this.wallClock()) };
        this.own = await this.client.update(withHolds({ ...lease, spec }, []), signal);
        this.validity.end();
        this.clearDeadline();
        this.publish([]);
        this.log.info({ lease: this.leaseName }, 'released the member lease');
        return;
      } catch (err) {
        if (attempt === 1) this.log.warn({ err: errorMessage(err) }, 'releasing the member lease failed; it expires instead');
      }
    }
  }

  /** What the listener may still be reconciling: the latest settled call's ranges and every later call's. */
  private holdsNow(): HashRange[] {
    return unionRanges(this.settledRanges, ...this.unsettled.map((c) => c.ranges));
  }

  /** What this replica's lease must say it holds: what may be reconciled, and what it is about to start. */
  private holds(): HashRange[] {
    return unionRanges(this.holdsNow(), this.pending);
  }

  private isRenewing(now: number): boolean {
    return this.validity.isValid(now);
  }

  private recompute(others: readonly LiveMember[], provenHolds: readonly HashRange[], now: number): ShardChange | undefined {
    const renewing = this.isRenewing(now);
    const members = [...new Set([...others.map((o) => o.identity), ...(renewing ? [this.identity] : [])])].sort();
    if (members.join('\n') !== this.live.join('\n')) this.log.info({ members }, 'shard group members changed');
    this.live = members;
    this.current = members.length === 0 ? undefined : assignShards(members, this.keys());
    const target = normalizeRanges(renewing ? (this.current?.get(this.identity) ?? []) : []);
    if (!sameRanges(target, this.assigned)) this.log.info({ ranges: describeRanges(target) }, 'assigned ranges changed');
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
        if (!renewing) this.transitions.record('lost', lost, [], now);
        else
          this.log.info(
            { ranges: describeRanges(lost) },
            'giving up ranges no longer assigned: draining their passes before releasing them',
          );
      }
      if (free.length > 0) this.transitions.record('acquired', free, previousHolders, now);
      change = this.setActive(next);
    }
    // Holds to publish (a range to start, or one drained): step again at once rather than a retry period later.
    if (renewing && !sameRanges(this.holds(), this.published)) this.wake();
    return change;
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
      .catch((err: unknown) => this.log.error({ err: errorMessage(err) }, 'the shard change listener failed'))
      .then(() => this.settle(call));
    return change;
  }

  private settle(call: ListenerCall): void {
    const i = this.unsettled.indexOf(call);
    if (i < 0) return; // a later call settled first and superseded it
    this.settledRanges = call.ranges;
    this.unsettled = this.unsettled.slice(i + 1);
    if (!sameRanges(this.holds(), this.published)) this.wake();
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
    if (holders.length > 0) this.transitions.record('waiting', this.pending, holders, now);
  }

  /** Records what the lease now says it holds; ranges given up that left it are released. */
  private publish(holds: HashRange[]): void {
    const released = intersectRanges(subtractRanges(this.published, holds), this.givenUp);
    this.published = holds;
    if (released.length > 0) {
      this.givenUp = subtractRanges(this.givenUp, released);
      // To whom, as this replica's assignment says (empty when nobody is assigned it, e.g. after a lost renewal).
      const to = [...(this.current ?? new Map<string, readonly HashRange[]>())]
        .filter(([m, r]) => m !== this.identity && intersectRanges(r, released).length > 0)
        .map(([m]) => m)
        .sort();
      this.transitions.record('released', released, to, this.clock.now());
    }
  }

  /** Arms a timer for the end of validity (a later renewal re-arms it; an overdue one fires at once). */
  private armDeadline(): void {
    this.clearDeadline();
    this.deadlineTimer = this.clock.setTimeout(() => {
      this.deadlineTimer = undefined;
      if (!this.validity.isValid()) this.loseAll();
      else if (this.running) this.armDeadline();
    }, this.validity.remainingMs());
  }

  private clearDeadline(): void {
    if (this.deadlineTimer !== undefined) this.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
  }

  /** The renew deadline passed: stop reconciling everything now, before any other member can count this lease out. */
  private loseAll(): ShardChange | undefined {
    this.pending = [];
    this.waitingFor = [];
    this.assigned = [];
    let change: ShardChange | undefined;
    if (this.active.length > 0) {
      this.givenUp = unionRanges(this.givenUp, this.active);
      this.transitions.record('lost', this.active, [], this.clock.now());
      change = this.setActive([]);
    }
    this.wake();
    return change;
  }

  private async watchGroup(stop: AbortSignal): Promise<void> {
    const watch = this.client.watch?.bind(this.client);
    if (watch === undefined) return;
    await keepLeaseWatch(stop, {
      clock: this.clock,
      retryPeriodMs: this.retryPeriodMs,
      leaseDurationMs: this.leaseDurationMs,
      log: this.log,
      failedMessage: 'watching the shard group failed; polling every retry period',
      open: (signal) =>
        watch(
          this.namespace,
          { labelSelector: `${SHARD_GROUP_LABEL}=${this.group}` },
          (e) => {
            if (this.view.absorbEvent(e.type, e.lease, this.clock.now())) this.wake();
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
    const now = this.clock.now();
    let next = now + this.retryPeriodMs;
    for (const o of this.view.liveOthers(this.identity, now)) if (o.expiresAtMs < next) next = o.expiresAtMs;
    return Math.max(0, next - now);
  }

  private async removeStale(lease: Lease, signal: AbortSignal): Promise<void> {
    const rv = lease.metadata.resourceVersion;
    if (rv === undefined) return;
    try {
      if (await this.client.delete(this.namespace, lease.metadata.name, rv, signal)) {
        this.view.forget(lease.metadata.name);
        this.log.info({ lease: lease.metadata.name }, 'removed the lease of a member gone for good');
      }
    } catch (err) {
      this.log.debug({ err: errorMessage(err), lease: lease.metadata.name }, 'removing a stale member lease failed');
    }
  }

  /** Writes this replica's lease with `holds`; true when the write succeeded. */
  private async renew(signal: AbortSignal, holds: HashRange[], retried = false): Promise<boolean> {
    const sentMs = this.clock.now();
    const nowIso = formatMicroTime(this.wallClock());
    const spec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDurationMs / 1000,
      renewTime: nowIso,
    };
    const deadline = deadlineSignal(this.clock, this.renewDeadlineMs, 'renewing the member lease', signal);
    try {
      if (this.own === undefined) {
        const existing = await this.client.get(this.namespace, this.leaseName, deadline.signal);
        const metadata = { name: this.leaseName, namespace: this.namespace, labels: { [SHARD_GROUP_LABEL]: this.group } };
        this.own =
          existing === undefined
            ? await this.client.create(
                withHolds({ metadata, spec: { ...spec, acquireTime: nowIso, leaseTransitions: 0 } }, holds),
                deadline.signal,
              )
            : await this.client.update(
                withHolds({ ...existing, metadata: { ...existing.metadata, ...metadata }, spec: { ...existing.spec, ...spec } }, holds),
                deadline.signal,
              );
        this.log.info({ lease: this.leaseName }, 'joined the shard group');
      } else {
        this.own = await this.client.update(withHolds({ ...this.own, spec: { ...this.own.spec, ...spec } }, holds), deadline.signal);
      }
      this.validity.renewed(sentMs);
      // Under run() a timer enforces the renew deadline even while a request hangs; stepped by hand, the next step does.
      if (this.running) this.armDeadline();
      this.publish(holds);
      return true;
    } catch (err) {
      const hadLease = this.own !== undefined;
      this.own = undefined; // read it again (a conflict, or it was deleted)
      // Removed while this replica looked dead to another: create it again at once.
      if (hadLease && !retried && err instanceof LeaseRequestError && err.status === 404) {
        deadline.dispose();
        return this.renew(signal, holds, true);
      }
      this.log.warn({ err: errorMessage(err) }, 'renewing the member lease failed');
      return false;
    } finally {
      deadline.dispose();
    }
  }
}
