import { realClock, silentLogger, type Clock, type Logger } from '@protean/core';
import { MAX_TIMER_DELAY_MS, wasChecked } from '@protean/core/internal';
import { assignShards } from './assignShards.js';
import { fnv1a64 } from './fnv1a64.js';
import type { MemberLeaseClient } from './MemberLeaseClient.js';
import type { ShardAssigner } from './RangeHandoff.js';
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
  /**
   * How the hash space is split among the live members (default
   * `assignShards`: one contiguous range each, balanced over `keys`). Every
   * replica of a group must use the same one, and it must give every hash to
   * exactly one member; the handoff keeps any split exclusive.
   */
  readonly assign?: ShardAssigner;
  /**
   * A member lease whose record did not change for this long, as this
   * replica saw it, is dead. Default 15 000; whole seconds, at most
   * 2 147 483 647 ms (core's `MAX_TIMER_DELAY_MS`: the waits it bounds are
   * timers), and so are `renewDeadlineMs` and `retryPeriodMs` below it.
   */
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

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DEFAULT_LEASE_DURATION_MS = 15_000;
const DEFAULT_RENEW_DEADLINE_MS = 10_000;
const DEFAULT_RETRY_PERIOD_MS = 2_000;
const DEFAULT_MAX_CLOCK_SKEW_MS = 2_000;

/** {@link ShardMembershipOptions} checked, defaults filled in. */
export type ResolvedShardMembershipOptions = Required<ShardMembershipOptions>;

/**
 * Checks `options` and fills in the defaults; throws {@link ShardingConfigError} naming the first bad option.
 * Options that went through core's `markChecked` (what `shardingModule` checked when it was built) are not
 * checked again.
 */
export function resolveShardMembershipOptions(options: ShardMembershipOptions): ResolvedShardMembershipOptions {
  if (!wasChecked(options)) checkShardMembershipOptions(options);
  return {
    client: options.client,
    namespace: options.namespace,
    group: options.group,
    identity: options.identity,
    keys: options.keys ?? (() => []),
    assign: options.assign ?? assignShards,
    leaseDurationMs: options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
    renewDeadlineMs: options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
    retryPeriodMs: options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    maxClockSkewMs: options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS,
    clock: options.clock ?? realClock,
    // eslint-disable-next-line no-restricted-properties -- the wall clock's default, injected like the clock
    wallClock: options.wallClock ?? Date.now,
    logger: options.logger ?? silentLogger(),
  };
}

/** Throws {@link ShardingConfigError} naming the first bad option of `options`. */
function checkShardMembershipOptions(options: ShardMembershipOptions): void {
  if (options?.client === undefined) throw new ShardingConfigError('client: is required');
  if (typeof options.namespace !== 'string' || !DNS_LABEL.test(options.namespace)) {
    throw new ShardingConfigError(`namespace: must be a DNS label, got ${JSON.stringify(options.namespace)}`);
  }
  if (typeof options.group !== 'string' || !DNS_LABEL.test(options.group) || options.group.length > 40) {
    throw new ShardingConfigError(`group: must be a DNS label of at most 40 characters, got ${JSON.stringify(options.group)}`);
  }
  if (typeof options.identity !== 'string' || options.identity === '')
    throw new ShardingConfigError(`identity: must be a non-empty string, got ${JSON.stringify(options.identity)}`);
  const leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  const renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
  const retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  const maxClockSkewMs = options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  // A value the caller left out is named as the default, so a bound broken by a default is not a puzzle.
  const shown = (value: number, given: number | undefined): string => `${value}${given === undefined ? ' (the default)' : ''}`;
  const lease = shown(leaseDurationMs, options.leaseDurationMs);
  const renew = shown(renewDeadlineMs, options.renewDeadlineMs);
  if (leaseDurationMs % 1000 !== 0 || leaseDurationMs <= 0) {
    throw new ShardingConfigError(`leaseDurationMs: must be a positive number of whole seconds, got ${lease}`);
  }
  // The waits for a member's expiry, the renew deadline and the retry period are timers; the last two are below it.
  if (leaseDurationMs > MAX_TIMER_DELAY_MS) {
    throw new ShardingConfigError(
      `leaseDurationMs: must be at most ${MAX_TIMER_DELAY_MS} ms (the longest delay Node's timers honour), got ${lease}`,
    );
  }
  if (!(renewDeadlineMs < leaseDurationMs)) {
    throw new ShardingConfigError(`renewDeadlineMs: must be less than leaseDurationMs (${lease}), got ${renew}`);
  }
  if (!(retryPeriodMs > 0 && retryPeriodMs < renewDeadlineMs)) {
    throw new ShardingConfigError(
      `retryPeriodMs: must be positive and less than renewDeadlineMs (${renew}), got ${shown(retryPeriodMs, options.retryPeriodMs)}`,
    );
  }
  if (!(maxClockSkewMs >= 0 && maxClockSkewMs <= leaseDurationMs)) {
    throw new ShardingConfigError(
      `maxClockSkewMs: must be between 0 and leaseDurationMs (${lease}), got ${shown(maxClockSkewMs, options.maxClockSkewMs)}`,
    );
  }
}
