import { describe, expect, it } from '@jest/globals';
import { markChecked } from '@protean/core/internal';
import { FakeInformerSource } from '@protean/core/testing';
import { FakeMemberLeaseClient } from './MemberLeaseClient.js';
import { ShardedInformerSource } from './ShardedInformerSource.js';
import { ShardingConfigError } from './ShardingConfigError.js';
import { shardingModule } from './shardingModule.js';
import { ShardMembership } from './ShardMembership.js';
import { resolveShardMembershipOptions, type ShardMembershipOptions } from './ShardMembershipOptions.js';
import { ShardReplica } from './ShardReplica.js';

/** The longest delay Node's timers honour (core's `MAX_TIMER_DELAY_MS`); a longer one fires after 1 ms. */
const LIMIT = 2 ** 31 - 1;
/** The first lease duration of whole seconds past the limit. */
const OVER = Math.ceil(LIMIT / 1000) * 1000;

/** Every public entry of the membership options: each checks them (through `resolveShardMembershipOptions`). */
const entries: readonly (readonly [string, (timing: Partial<ShardMembershipOptions>) => unknown])[] = [
  [
    'new ShardMembership',
    (timing) => new ShardMembership({ client: new FakeMemberLeaseClient(), namespace: 'ns', group: 'g', identity: 'i', ...timing }),
  ],
  [
    'new ShardReplica',
    (timing) =>
      new ShardReplica({
        client: new FakeMemberLeaseClient(),
        namespace: 'ns',
        group: 'g',
        identity: 'i',
        source: new ShardedInformerSource(new FakeInformerSource(), { key: 'namespace' }),
        ...timing,
      }),
  ],
  [
    'shardingModule',
    (timing) =>
      shardingModule({
        client: new FakeMemberLeaseClient(),
        namespace: 'ns',
        group: 'g',
        identity: 'i',
        key: 'namespace',
        mode: 'client',
        kubeConfig: undefined as never,
        source: new ShardedInformerSource(new FakeInformerSource(), { key: 'namespace' }),
        ...timing,
      }),
  ],
];

describe('ShardMembershipOptions: durations that become timers', () => {
  it.each(entries)('%s refuses a leaseDurationMs past 2^31 - 1 ms, naming it and the limit', (_entry, build) => {
    expect(() => build({ leaseDurationMs: OVER, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toThrow(ShardingConfigError);
    expect(() => build({ leaseDurationMs: OVER, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toThrow(
      `leaseDurationMs: must be at most ${LIMIT} ms (the longest delay Node's timers honour), got ${OVER}`,
    );
    // renewDeadlineMs and retryPeriodMs are below leaseDurationMs: past the limit, they are refused by that bound.
    expect(() => build({ renewDeadlineMs: OVER })).toThrow(/^renewDeadlineMs: must be less than leaseDurationMs/);
    expect(() => build({ leaseDurationMs: OVER - 1000, renewDeadlineMs: OVER - 2000, retryPeriodMs: OVER - 3000 })).not.toThrow();
  });
});

describe('membership options checked once', () => {
  const base = { client: new FakeMemberLeaseClient(), namespace: 'ns', group: 'g', identity: 'i' };

  it('checks options no entry checked, and trusts what shardingModule marked checked when it was built', () => {
    const bad = { ...base, leaseDurationMs: 1500 };
    expect(() => resolveShardMembershipOptions(bad)).toThrow('leaseDurationMs: must be a positive number of whole seconds, got 1500');
    // A marked object is not checked again (shardingModule checked it): its values pass through as given.
    expect(resolveShardMembershipOptions(markChecked({ ...bad })).leaseDurationMs).toBe(1500);
  });

  it('keeps a checked replica option checked for its membership, and checks an unmarked one', () => {
    const source = new ShardedInformerSource(new FakeInformerSource(), { key: 'namespace' });
    expect(() => new ShardReplica({ ...base, source, retryPeriodMs: 0 })).toThrow('retryPeriodMs: must be positive');
    expect(() => new ShardReplica(markChecked({ ...base, source, retryPeriodMs: 0 }))).not.toThrow();
  });
});
