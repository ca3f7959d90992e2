import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '@protean/core/testing';
import { assignShards } from './assignShards.js';
import { HASH_SPACE_END, type HashRange } from './HashRange.js';
import { FakeMemberLeaseClient } from './MemberLeaseClient.js';
import { ShardMembership, type ShardChange } from './ShardMembership.js';
import { memberLeaseName, SHARD_GROUP_LABEL } from './ShardMembershipOptions.js';
import { ShardingConfigError } from './ShardingConfigError.js';
import { holdsOf } from './rangeClaims.js';

const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'team-delta', 'payments'];
const signal = new AbortController().signal;

function group(client: FakeMemberLeaseClient, clock: FakeClock, ids: string[]): ShardMembership[] {
  return ids.map(
    (identity) =>
      new ShardMembership({ client, clock, namespace: 'ctl-system', group: 'webapp', identity, keys: () => KEYS, wallClock: () => 0 }),
  );
}

async function round(members: ShardMembership[]): Promise<void> {
  for (const m of members) await m.step(signal);
}

function expectPartition(members: ShardMembership[]): void {
  const ranges: HashRange[] = members.flatMap((m) => [...m.ranges()]).sort((a, b) => (a.start < b.start ? -1 : 1));
  expect(ranges[0]!.start).toBe(0n);
  expect(ranges.at(-1)!.end).toBe(HASH_SPACE_END);
  for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.start).toBe(ranges[i - 1]!.end);
}

describe('ShardMembership', () => {
  it('gives every member the same view and a share of the balanced assignment, by one labelled lease each', async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const replicas = group(client, clock, ['r2', 'r0', 'r1']);
    // Round 1: join and claim; round 2: r2's first view (everything) still holds the others' shares; round 3: released, started.
    await round(replicas);
    await round(replicas);
    expect(replicas.map((r) => r.ranges().length)).toEqual([1, 0, 0]);
    await round(replicas);
    const expected = assignShards(['r0', 'r1', 'r2'], KEYS);
    for (const r of replicas) {
      expect(r.members()).toEqual(['r0', 'r1', 'r2']);
      expect(r.ranges()).toEqual(expected.get(r.identity));
    }
    expectPartition(replicas);
    const lease = client.read('ctl-system', replicas[0]!.leaseName)!;
    expect(lease.metadata['labels']).toEqual({ [SHARD_GROUP_LABEL]: 'webapp' });
    expect(lease.spec).toMatchObject({ holderIdentity: 'r2', leaseDurationSeconds: 15 });
  });

  it('reports a change of share once, and drops a member that stopped renewing after its lease duration', async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const [r0, r1, r2] = group(client, clock, ['r0', 'r1', 'r2']) as [ShardMembership, ShardMembership, ShardMembership];
    await round([r0, r1, r2]);
    await round([r0, r1, r2]);
    await round([r0, r1, r2]);
    expect(await r0.step(signal)).toBeUndefined();
    await r1.step(signal); // both have now seen r2's last renewal at t=0
    // r2 dies: r0 and r1 keep it until its record has not changed for 15 s on their clock.
    clock.advance(14_000);
    await round([r0, r1]);
    expect(r0.members()).toEqual(['r0', 'r1', 'r2']);
    clock.advance(1_000);
    // r2 is counted out and its expired lease's holds no longer count. r0's gain is r1's old share: r1 releases it
    // (one step to give it up, one to publish), r0 claims it, and starts it once r1's lease no longer holds it.
    const changes: ShardChange[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await r0.step(signal);
      if (c !== undefined) changes.push(c);
      await r1.step(signal);
    }
    expect(changes).toHaveLength(1);
    const change = changes[0];
    expect(change?.members).toEqual(['r0', 'r1']);
    expect(r1.members()).toEqual(['r0', 'r1']);
    expect(change?.ranges).toEqual(assignShards(['r0', 'r1'], KEYS).get('r0'));
    expectPartition([r0, r1]);
  });

  it('releases its lease on a graceful stop, so the others drop it at their next step', async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const [r0, r1] = group(client, clock, ['r0', 'r1']) as [ShardMembership, ShardMembership];
    const stop = new AbortController();
    const changes: (readonly HashRange[])[] = [];
    const running = r1.run(stop.signal, (c) => void changes.push(c.ranges));
    await r0.step(signal);
    await new Promise((r) => setImmediate(r));
    await r0.step(signal);
    clock.advance(2_000);
    await new Promise((r) => setImmediate(r));
    await r0.step(signal);
    expect(r0.members()).toEqual(['r0', 'r1']);
    stop.abort();
    await running;
    expect(changes.at(-1)).toEqual([]);
    expect(client.read('ctl-system', r1.leaseName)!.spec?.holderIdentity).toBe('');
    await r0.step(signal);
    expect(r0.members()).toEqual(['r0']);
    await r0.step(signal);
    expect(r0.ranges()).toEqual([{ start: 0n, end: HASH_SPACE_END }]);
  });

  it('releases its lease even when the copy it wrote last is stale', async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const [r0] = group(client, clock, ['r0']) as [ShardMembership];
    await r0.step(signal);
    client.write(client.read('ctl-system', r0.leaseName)!); // a write it did not see: its copy is stale
    await r0.release();
    expect(client.read('ctl-system', r0.leaseName)!.spec?.holderIdentity).toBe('');
  });

  it('removes the leases of members gone for good: released at once, silent after two lease durations', async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const [r0, r1, r2] = group(client, clock, ['r0', 'r1', 'r2']) as [ShardMembership, ShardMembership, ShardMembership];
    await round([r0, r1, r2]);
    await r1.release();
    await r0.step(signal);
    expect(client.read('ctl-system', r1.leaseName)).toBeDefined(); // hidden by the fake once deleted
    expect(await client.get('ctl-system', r1.leaseName, signal)).toBeUndefined();
    // r2 goes silent: dropped after 15 s, its lease removed after 30 s.
    clock.advance(15_000);
    await r0.step(signal);
    expect(r0.members()).toEqual(['r0']);
    expect(await client.get('ctl-system', r2.leaseName, signal)).toBeDefined();
    clock.advance(15_000);
    await r0.step(signal);
    expect(await client.get('ctl-system', r2.leaseName, signal)).toBeUndefined();
    expect((await client.list('ctl-system', `${SHARD_GROUP_LABEL}=webapp`, signal)).map((l) => l.spec?.holderIdentity)).toEqual(['r0']);
    // A member that comes back creates its lease again.
    await r2.step(signal);
    await r0.step(signal);
    expect(r0.members()).toEqual(['r0', 'r2']);
  });

  it('drops its own share when it could not renew for the renew deadline', async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const [r0] = group(client, clock, ['r0']) as [ShardMembership];
    await r0.step(signal);
    await r0.step(signal);
    expect(r0.ranges()).toEqual([{ start: 0n, end: HASH_SPACE_END }]);
    client.failing = true;
    clock.advance(9_000);
    await r0.step(signal);
    expect(r0.ranges()).toHaveLength(1);
    clock.advance(1_000);
    const change = await r0.step(signal);
    expect(change?.ranges).toEqual([]);
    expect(r0.status().transitions.lost).toBe(1);
    client.failing = false;
    await r0.step(signal);
    await r0.step(signal);
    expect(r0.ranges()).toEqual([{ start: 0n, end: HASH_SPACE_END }]);
  });

  it('reports each handoff step with the other member: waiting for its hold, released to it, acquired from it', async () => {
    const client = new FakeMemberLeaseClient();
    const clock = new FakeClock();
    const [r0, r1] = group(client, clock, ['r0', 'r1']) as [ShardMembership, ShardMembership];
    const seen: string[] = [];
    for (const m of [r0, r1]) m.onTransition((t) => seen.push(`${m.identity} ${t.kind} ${t.others.join(',')}`));
    const stop = new AbortController();
    const tick = async (ms: number): Promise<void> => {
      for (let t = 0; t < ms; t += 10) await clock.advanceAsync(10);
    };
    const running = [r0.run(stop.signal)];
    await tick(100);
    expect(r0.ranges()).toEqual([{ start: 0n, end: HASH_SPACE_END }]);
    running.push(r1.run(stop.signal));
    await tick(200);
    expect(seen).toEqual(['r0 acquired ', 'r1 waiting r0', 'r0 released r1', 'r1 acquired r0']);
    expect(r1.ranges()).toEqual(assignShards(['r0', 'r1'], KEYS).get('r1'));
    const lease = client.read('ctl-system', r0.leaseName)!;
    expect(holdsOf(lease)).toEqual(r0.ranges());
    stop.abort();
    await tick(100);
    await Promise.all(running);
    expect(holdsOf(client.read('ctl-system', r0.leaseName)!)).toEqual([]);
  });

  it('names leases validly and refuses bad options', () => {
    const name = memberLeaseName('webapp', 'Host_123_ab');
    expect(name).toMatch(/^webapp-host-123-ab-[0-9a-f]{16}$/);
    expect(memberLeaseName('g', '___')).toMatch(/^g-[0-9a-f]{16}$/);
    const client = new FakeMemberLeaseClient();
    const base = { client, namespace: 'ns', group: 'g', identity: 'i' };
    expect(() => new ShardMembership({ ...base, group: 'Bad_Group' })).toThrow(ShardingConfigError);
    expect(() => new ShardMembership({ ...base, identity: '' })).toThrow(/identity/);
    expect(() => new ShardMembership({ ...base, leaseDurationMs: 1500 })).toThrow(/whole seconds/);
    expect(() => new ShardMembership({ ...base, renewDeadlineMs: 15_000 })).toThrow(/renewDeadlineMs/);
    expect(() => new ShardMembership({ ...base, retryPeriodMs: 10_000 })).toThrow(/retryPeriodMs/);
    // Each message names the values, and which of them were defaults.
    expect(() => new ShardMembership({ ...base, identity: '' })).toThrow('identity: must be a non-empty string, got ""');
    expect(() => new ShardMembership({ ...base, leaseDurationMs: 1500 })).toThrow(
      'leaseDurationMs: must be a positive number of whole seconds, got 1500',
    );
    expect(() => new ShardMembership({ ...base, leaseDurationMs: 5000 })).toThrow(
      'renewDeadlineMs: must be less than leaseDurationMs (5000), got 10000 (the default)',
    );
    expect(() => new ShardMembership({ ...base, renewDeadlineMs: 1000 })).toThrow(
      'retryPeriodMs: must be positive and less than renewDeadlineMs (1000), got 2000 (the default)',
    );
  });
});
