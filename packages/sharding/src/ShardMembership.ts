import { errorMessage, realClock, silentLogger, type Clock, type Logger } from '@protean/core';
import { formatMicroTime, LeaseRequestError, type Lease } from '@protean/leader-election';
import { assignShards, type ShardAssignment } from './assignShards.js';
import { fnv1a64 } from './fnv1a64.js';
import type { HashRange } from './HashRange.js';
import type { MemberLeaseClient } from './MemberLeaseClient.js';
import { ShardingConfigError } from './ShardingConfigError.js';

/** The label every member lease of a shard group carries; its value is the group. */
export const SHARD_GROUP_LABEL = 'sharding.protean.dev/group';

/** Options of a {@link ShardMembership}. */
export interface ShardMembershipOptions {
  readonly client: MemberLeaseClient;
  /** Where the member leases live. */
  readonly namespace: string;
  /** The shard group (one per controller); the label value of its leases and the prefix of their names. */
  readonly group: string;
  /** This replica's identity: unique per process. */
  readonly identity: string;
  /** The keys present (namespaces, or uids) the split balances; default none (equal fractions). */
  readonly keys?: () => readonly string[];
  /** A member lease whose record did not change for this long, as this replica saw it, is dead. Default 15 000. */
  readonly leaseDurationMs?: number;
  /** This replica drops its own share when it could not renew for this long. Default 10 000, below `leaseDurationMs`. */
  readonly renewDeadlineMs?: number;
  /** Renew, list and recompute every period. Default 2 000. */
  readonly retryPeriodMs?: number;
  readonly clock?: Clock;
  /** Wall-clock milliseconds for the lease's MicroTime fields. Default `Date.now`. */
  readonly wallClock?: () => number;
  readonly logger?: Logger;
}

/** What {@link ShardMembership} hands to its listener when this replica's share changed. */
export interface ShardChange {
  readonly members: readonly string[];
  readonly assignment: ShardAssignment;
  /** This replica's ranges now (empty while it is not a live member). */
  readonly ranges: readonly HashRange[];
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Membership of a shard group by one `coordination.k8s.io/v1` Lease per
 * replica, with leader election's record conventions (holder identity,
 * MicroTime renew time, duration in seconds, released with no holder on a
 * graceful stop): each replica renews its own lease every retry period,
 * removes the leases of members gone for good (released, or unchanged for
 * two lease durations; deletes guarded by their resourceVersion),
 * lists the group's leases by label, and computes `assignShards(live
 * members, keys)`. A member is live while its lease names a holder and
 * its record changed within its lease duration, measured on this
 * replica's clock from when it saw the change (clocks across nodes need
 * not agree; a lease seen for the first time counts as just renewed).
 *
 * This replica counts itself a member only while its last successful
 * renewal was sent less than `renewDeadlineMs` ago: a replica cut off
 * from the server drops its share before the others can take it
 * (`leaseDurationMs` after that renewal).
 *
 * Easy to get wrong: each replica computes the assignment from its own
 * view, so during a membership change two replicas may briefly disagree
 * (for up to a retry period plus a lease duration); the share is a
 * routing decision, not a lock. Exclusive handoff (drain, then release a
 * range before its new owner starts) is not part of this class.
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
  private readonly clock: Clock;
  private readonly wallClock: () => number;
  private readonly log: Logger;
  private own: Lease | undefined;
  private lastRenewSentMs: number | undefined;
  private readonly seen = new Map<string, { record: string; atMs: number }>();
  private live: readonly string[] = [];
  private current: ShardAssignment | undefined;
  private currentRanges: readonly HashRange[] = [];

  constructor(options: ShardMembershipOptions) {
    if (options?.client === undefined) throw new ShardingConfigError('client: is required');
    if (typeof options.namespace !== 'string' || !DNS_LABEL.test(options.namespace)) {
      throw new ShardingConfigError(`namespace: must be a DNS label, got ${JSON.stringify(options.namespace)}`);
    }
    if (typeof options.group !== 'string' || !DNS_LABEL.test(options.group) || options.group.length > 40) {
      throw new ShardingConfigError(`group: must be a DNS label of at most 40 characters, got ${JSON.stringify(options.group)}`);
    }
    if (typeof options.identity !== 'string' || options.identity === '')
      throw new ShardingConfigError('identity: must be a non-empty string');
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (this.leaseDurationMs % 1000 !== 0 || this.leaseDurationMs <= 0) {
      throw new ShardingConfigError('leaseDurationMs: must be a positive number of whole seconds');
    }
    if (!(this.renewDeadlineMs < this.leaseDurationMs)) throw new ShardingConfigError('renewDeadlineMs: must be less than leaseDurationMs');
    if (!(this.retryPeriodMs > 0 && this.retryPeriodMs < this.renewDeadlineMs)) {
      throw new ShardingConfigError('retryPeriodMs: must be positive and less than renewDeadlineMs');
    }
    this.client = options.client;
    this.namespace = options.namespace;
    this.group = options.group;
    this.identity = options.identity;
    this.keys = options.keys ?? (() => []);
    this.clock = options.clock ?? realClock;
    this.wallClock = options.wallClock ?? Date.now;
    this.leaseName = memberLeaseName(options.group, options.identity);
    this.log = (options.logger ?? silentLogger()).child({ component: 'sharding', group: this.group, identity: this.identity });
  }

  /** The live members in identity order, as of the last step. */
  members(): readonly string[] {
    return this.live;
  }

  /** The assignment of the last step; undefined before the first one or while no member is live. */
  assignment(): ShardAssignment | undefined {
    return this.current;
  }

  /** This replica's ranges as of the last step. */
  ranges(): readonly HashRange[] {
    return this.currentRanges;
  }

  /**
   * One round: renew this replica's lease (creating it at first), list the
   * group, recompute. Resolves with the change when this replica's ranges
   * changed, else undefined. Never rejects on a failed request (logged).
   */
  async step(signal: AbortSignal): Promise<ShardChange | undefined> {
    await this.renew(signal);
    let leases: Lease[] | undefined;
    try {
      leases = await this.client.list(this.namespace, `${SHARD_GROUP_LABEL}=${this.group}`, signal);
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'listing the shard group failed');
    }
    const now = this.clock.now();
    const members = new Set<string>();
    const stale: Lease[] = [];
    if (leases !== undefined) {
      const names = new Set<string>();
      for (const lease of leases) {
        const name = lease.metadata.name;
        names.add(name);
        const record = `${lease.metadata.resourceVersion ?? ''} ${JSON.stringify(lease.spec ?? {})}`;
        const before = this.seen.get(name);
        if (before === undefined || before.record !== record) this.seen.set(name, { record, atMs: now });
        const holder = lease.spec?.holderIdentity ?? '';
        const durationMs = (lease.spec?.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
        const idleMs = now - this.seen.get(name)!.atMs;
        if (holder !== '' && holder !== this.identity && idleMs < durationMs) members.add(holder);
        // Leases of replicas gone for good (released, or silent for two durations) are removed by whoever sees them.
        else if (name !== this.leaseName && (holder === '' || idleMs >= 2 * durationMs)) stale.push(lease);
      }
      for (const name of [...this.seen.keys()]) if (!names.has(name)) this.seen.delete(name);
    } else {
      // Without a fresh list, keep the members of the last one that have not expired yet.
      for (const m of this.live) if (m !== this.identity) members.add(m);
    }
    if (this.lastRenewSentMs !== undefined && now - this.lastRenewSentMs < this.renewDeadlineMs) members.add(this.identity);
    const change = this.recompute([...members].sort());
    for (const lease of stale) await this.removeStale(lease, signal);
    return change;
  }

  /** Steps every retry period until `signal` aborts, then releases this replica's lease. Calls `onChange` on every change of its share. */
  async run(signal: AbortSignal, onChange: (change: ShardChange) => void | Promise<void> = () => {}): Promise<void> {
    while (!signal.aborted) {
      const change = await this.step(signal);
      if (change !== undefined) {
        try {
          await onChange(change);
        } catch (err) {
          this.log.error({ err: errorMessage(err) }, 'the shard change listener threw');
        }
      }
      await sleep(this.clock, this.retryPeriodMs, signal);
    }
    await this.release();
    const change = this.recompute(this.live.filter((m) => m !== this.identity));
    if (change !== undefined) await Promise.resolve(onChange(change)).catch(() => {});
  }

  /** Writes this replica's lease with no holder, so the others drop it at their next step. */
  async release(): Promise<void> {
    const signal = new AbortController().signal;
    // Twice at most: the lease we wrote last may be stale (a renewal cut short by the stop may have landed).
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const lease = attempt === 0 && this.own !== undefined ? this.own : await this.client.get(this.namespace, this.leaseName, signal);
        if (lease === undefined || (lease.spec?.holderIdentity ?? '') !== this.identity) return;
        const spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: formatMicroTime(this.wallClock()) };
        this.own = await this.client.update({ ...lease, spec }, signal);
        this.lastRenewSentMs = undefined;
        this.log.info({ lease: this.leaseName }, 'released the member lease');
        return;
      } catch (err) {
        if (attempt === 1) this.log.warn({ err: errorMessage(err) }, 'releasing the member lease failed; it expires instead');
      }
    }
  }

  private async removeStale(lease: Lease, signal: AbortSignal): Promise<void> {
    const rv = lease.metadata.resourceVersion;
    if (rv === undefined) return;
    try {
      if (await this.client.delete(this.namespace, lease.metadata.name, rv, signal)) {
        this.seen.delete(lease.metadata.name);
        this.log.info({ lease: lease.metadata.name }, 'removed the lease of a member gone for good');
      }
    } catch (err) {
      this.log.debug({ err: errorMessage(err), lease: lease.metadata.name }, 'removing a stale member lease failed');
    }
  }

  private async renew(signal: AbortSignal, retried = false): Promise<void> {
    const sentMs = this.clock.now();
    const nowIso = formatMicroTime(this.wallClock());
    const spec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDurationMs / 1000,
      renewTime: nowIso,
    };
    try {
      if (this.own === undefined) {
        const existing = await this.client.get(this.namespace, this.leaseName, signal);
        const metadata = { name: this.leaseName, namespace: this.namespace, labels: { [SHARD_GROUP_LABEL]: this.group } };
        this.own =
          existing === undefined
            ? await this.client.create({ metadata, spec: { ...spec, acquireTime: nowIso, leaseTransitions: 0 } }, signal)
            : await this.client.update(
                { ...existing, metadata: { ...existing.metadata, ...metadata }, spec: { ...existing.spec, ...spec } },
                signal,
              );
        this.log.info({ lease: this.leaseName }, 'joined the shard group');
      } else {
        this.own = await this.client.update({ ...this.own, spec: { ...this.own.spec, ...spec } }, signal);
      }
      this.lastRenewSentMs = sentMs;
    } catch (err) {
      const hadLease = this.own !== undefined;
      this.own = undefined; // read it again (a conflict, or it was deleted)
      // Removed while this replica looked dead to another: create it again at once.
      if (hadLease && !retried && err instanceof LeaseRequestError && err.status === 404) return this.renew(signal, true);
      this.log.warn({ err: errorMessage(err) }, 'renewing the member lease failed');
    }
  }

  private recompute(members: readonly string[]): ShardChange | undefined {
    if (members.join('\n') !== this.live.join('\n')) this.log.info({ members }, 'shard group members changed');
    this.live = members;
    this.current = members.length === 0 ? undefined : assignShards(members, this.keys());
    const ranges = this.current?.get(this.identity) ?? [];
    if (sameRanges(ranges, this.currentRanges)) return undefined;
    this.currentRanges = ranges;
    this.log.info({ ranges: ranges.map((r) => `[0x${r.start.toString(16)}, 0x${r.end.toString(16)})`) }, 'owned ranges changed');
    return { members, assignment: this.current ?? new Map(), ranges };
  }
}

/** The lease name of `identity` in `group`: `<group>-<identity, sanitized>-<fnv1a64 of identity>`, a valid object name. */
export function memberLeaseName(group: string, identity: string): string {
  const readable = identity
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const hash = fnv1a64(identity).toString(16).padStart(16, '0');
  return readable === '' ? `${group}-${hash}` : `${group}-${readable}-${hash}`;
}

function sameRanges(a: readonly HashRange[], b: readonly HashRange[]): boolean {
  return a.length === b.length && a.every((r, i) => r.start === b[i]!.start && r.end === b[i]!.end);
}

function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
