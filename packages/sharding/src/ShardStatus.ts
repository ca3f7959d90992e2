import type { HashRange } from './HashRange.js';

/** What happened to a range of this replica; see {@link ShardTransition}. */
export type ShardTransitionKind = 'acquired' | 'waiting' | 'released' | 'lost';

/**
 * One step of the handoff protocol on this replica, as logged at info:
 * - `acquired`: no other member holds the range any more; this replica started reconciling it
 *   (`others`: the members it waited for, empty when it was free at once);
 * - `waiting`: the range is assigned here, but `others` still hold (part of) it;
 * - `released`: the range is no longer assigned here; its passes drained and the release was published
 *   (`others`: the members it is assigned to now);
 * - `lost`: this replica could not renew its lease for the renew deadline and stopped reconciling the range.
 */
export interface ShardTransition {
  readonly kind: ShardTransitionKind;
  readonly ranges: readonly HashRange[];
  /** The other members involved; see the kinds. */
  readonly others: readonly string[];
  /** Clock ms. */
  readonly atMs: number;
}

/** A snapshot of a {@link ShardMembership}, for metrics, status pages and tests. */
export interface ShardMembershipStatus {
  readonly identity: string;
  readonly group: string;
  /** The live members, in identity order. */
  readonly members: readonly string[];
  /** The ranges the assignment gives this replica. */
  readonly assigned: readonly HashRange[];
  /** The ranges this replica reconciles now (held and started). */
  readonly ranges: readonly HashRange[];
  /** Assigned ranges it waits for, with the members that still hold them. */
  readonly waiting: readonly { readonly range: HashRange; readonly holders: readonly string[] }[];
  /** Ranges given up whose passes are still draining: still held, not yet released. */
  readonly releasing: readonly HashRange[];
  /** What this replica's lease says it holds, as last written. */
  readonly published: readonly HashRange[];
  /** True while its last successful renewal was sent less than the renew deadline ago. */
  readonly renewing: boolean;
  /** True while a watch of the group's leases is open (else it polls every retry period). */
  readonly watching: boolean;
  /** Keys per member of the current assignment, over the keys given to the membership. */
  readonly keysPerMember: ReadonlyMap<string, number>;
  /** Transitions so far, by kind. */
  readonly transitions: Readonly<Record<ShardTransitionKind, number>>;
}
