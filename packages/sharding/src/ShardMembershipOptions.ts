import type { Clock, Logger } from '@protean/core';
import { fnv1a64 } from './fnv1a64.js';
import type { MemberLeaseClient } from './MemberLeaseClient.js';

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
  /**
   * How far the wall clocks of two members may disagree. A lease this
   * replica sees for the first time (it just started) is dated by its
   * `renewTime`, taken this much younger, so a joiner counts a dead
   * member out when the survivors do. Default 2 000; at most
   * `leaseDurationMs` (then a first-seen lease counts as just renewed).
   * Clocks off by more still never let a live member be counted out early
   * while the excess stays below `leaseDurationMs - renewDeadlineMs`.
   */
  readonly maxClockSkewMs?: number;
  readonly clock?: Clock;
  /** Wall-clock milliseconds for the lease's MicroTime fields. Default `Date.now`. */
  readonly wallClock?: () => number;
  readonly logger?: Logger;
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
