import type { Lease } from '@protean/leader-election';
import type { HashRange } from './HashRange.js';
import { holdsOf, SHARD_HOLDS_ANNOTATION } from './rangeClaims.js';

/** A member lease as last seen, and when (clock ms) this replica saw its record change. */
interface Seen {
  readonly lease: Lease;
  readonly record: string;
  readonly atMs: number;
}

/** Another member whose lease is unexpired on this replica's clock. */
export interface LiveMember {
  readonly identity: string;
  readonly holds: readonly HashRange[];
  /** When (clock ms) its lease expires unless its record changes. */
  readonly expiresAtMs: number;
}

/**
 * This replica's view of a shard group's member leases, fed by LISTs and
 * by watch events: each lease with the time its record last changed as
 * seen here, so expiry is measured on this replica's clock (as client-go's
 * leader election does). A lease seen for the first time is dated by its
 * recorded `renewTime`, taken `maxClockSkewMs` younger than the wall
 * clocks say (never older than just renewed): a replica that just started
 * then counts a dead member out when the others do, give or take the skew,
 * instead of a whole lease duration later.
 *
 * Easy to get wrong: only a first sighting uses the holder's wall clock;
 * every later change is timed on this replica's monotonic clock, so a
 * wrong wall clock can shorten a member's life by at most the skew it
 * exceeds `maxClockSkewMs` by, once.
 */
export class MemberLeaseView {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly ownLeaseName: string,
    private readonly defaultDurationMs: number,
    /** Wall-clock milliseconds, to age a lease seen for the first time by its `renewTime`. */
    // eslint-disable-next-line no-restricted-properties -- the wall clock's default, injected like the clock
    private readonly wallClock: () => number = Date.now,
    /** How far the wall clocks of two members may disagree. */
    private readonly maxClockSkewMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Replaces the view with a LIST's leases (those missing from it are gone). */
  absorbList(leases: readonly Lease[], nowMs: number): void {
    const names = new Set<string>();
    for (const lease of leases) {
      names.add(lease.metadata.name);
      this.absorb(lease, nowMs);
    }
    for (const name of [...this.seen.keys()]) if (!names.has(name)) this.seen.delete(name);
  }

  /**
   * One watch event. Returns true when it matters to the assignment or the
   * handoff (a lease appeared or went, its holder or its holds changed),
   * false for a plain renewal, an event of this replica's own lease, or an
   * event older than what the view has.
   */
  absorbEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease, nowMs: number): boolean {
    const name = lease.metadata.name;
    if (name === this.ownLeaseName) return false;
    if (type === 'DELETED') return this.seen.delete(name);
    const before = this.seen.get(name);
    if (before !== undefined && olderThan(lease, before.lease)) return false;
    if (!this.absorb(lease, nowMs)) return false;
    return (
      before === undefined ||
      holderOf(before.lease) !== holderOf(lease) ||
      annotation(before.lease) !== annotation(lease) ||
      before.lease.spec?.leaseDurationSeconds !== lease.spec?.leaseDurationSeconds
    );
  }

  /** Forgets a lease (after deleting it). */
  forget(name: string): void {
    this.seen.delete(name);
  }

  /** The other members whose leases name a holder and changed within their lease duration. */
  liveOthers(self: string, nowMs: number): LiveMember[] {
    const out: LiveMember[] = [];
    for (const [name, s] of this.seen) {
      if (name === this.ownLeaseName) continue;
      const holder = holderOf(s.lease);
      const expiresAtMs = s.atMs + this.durationOf(s.lease);
      if (holder !== '' && holder !== self && nowMs < expiresAtMs) out.push({ identity: holder, holds: holdsOf(s.lease), expiresAtMs });
    }
    return out;
  }

  /** Leases of members gone for good: released, or unchanged for two lease durations. */
  gone(nowMs: number): Lease[] {
    const out: Lease[] = [];
    for (const [name, s] of this.seen) {
      if (name === this.ownLeaseName) continue;
      if (holderOf(s.lease) === '' || nowMs - s.atMs >= 2 * this.durationOf(s.lease)) out.push(s.lease);
    }
    return out;
  }

  private absorb(lease: Lease, nowMs: number): boolean {
    const name = lease.metadata.name;
    const record = `${lease.metadata.resourceVersion ?? ''} ${JSON.stringify(lease.spec ?? {})} ${annotation(lease)}`;
    const before = this.seen.get(name);
    if (before !== undefined && before.record === record) return false;
    this.seen.set(name, { lease, record, atMs: before === undefined ? nowMs - this.firstSeenAgeMs(lease) : nowMs });
    return true;
  }

  /** How long ago a lease seen for the first time was renewed: by its renewTime, less the skew allowance, at least 0. */
  private firstSeenAgeMs(lease: Lease): number {
    const renewed = Date.parse(lease.spec?.renewTime ?? '');
    if (Number.isNaN(renewed)) return 0;
    return Math.max(0, this.wallClock() - renewed - this.maxClockSkewMs);
  }

  private durationOf(lease: Lease): number {
    const seconds = lease.spec?.leaseDurationSeconds;
    return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : this.defaultDurationMs;
  }
}

function holderOf(lease: Lease): string {
  return lease.spec?.holderIdentity ?? '';
}

function annotation(lease: Lease): string {
  const a = (lease.metadata['annotations'] ?? {}) as Record<string, unknown>;
  return String(a[SHARD_HOLDS_ANNOTATION] ?? '');
}

/** True when both resourceVersions are integers (etcd's) and `a`'s is the older: a late event. */
function olderThan(a: Lease, b: Lease): boolean {
  const x = a.metadata.resourceVersion;
  const y = b.metadata.resourceVersion;
  if (x === undefined || y === undefined || !/^\d+$/.test(x) || !/^\d+$/.test(y)) return false;
  return BigInt(x) < BigInt(y);
}
