import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Handler } from '@protean/core';
import { createTestController, FakeInformerSource, type TestController } from '@protean/testing';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges } from './HashRange.js';
import { FakeMemberLeaseClient } from './MemberLeaseClient.js';
import { ShardedInformerSource } from './ShardedInformerSource.js';
import { ShardingConfigError } from './ShardingConfigError.js';
import { shardingModule } from './shardingModule.js';
import { ShardReplica } from './ShardReplica.js';

const gvr = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const NAMESPACES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'team-delta', 'payments'];
const TIMING = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 50 };
const controllers: TestController<FakeInformerSource>[] = [];

afterEach(async () => {
  for (const c of controllers.splice(0)) await c.dispose();
});

describe('shardingModule', () => {
  it('makes each controller one replica: handlers registered as they are run only for its share, fenced by its membership', async () => {
    const cluster = new FakeInformerSource();
    for (const ns of NAMESPACES) cluster.add(gvr, { namespace: ns, name: 'app' });
    const leases = new FakeMemberLeaseClient();
    const passes: { member: string; namespace: string; fenced: boolean }[] = [];
    const replicas = ['r0', 'r1'].map((identity) => {
      const source = new ShardedInformerSource(cluster, { key: 'namespace' });
      let replica: ShardReplica | undefined;
      const t = createTestController({
        configure: (c) => {
          c.load(
            shardingModule({
              kubeConfig: undefined as never,
              client: leases,
              source,
              key: 'namespace',
              mode: 'client',
              namespace: 'default',
              group: 'webapp',
              identity,
              keys: () => NAMESPACES,
              ...TIMING,
            }),
          );
          c.onActivation(Symbol.for('@protean/core:PassGate'), (_ctx, gate) => (replica = gate as ShardReplica));
        },
      });
      controllers.push(t);
      // Not wrapped by hand: the controller wraps it with the replica's gate.
      const handler: Handler = async (item, ctx) => {
        passes.push({
          member: identity,
          namespace: item.namespace,
          fenced: replica!.membership.validity.isValid() && ctx.signal !== undefined,
        });
      };
      return { identity, t, handler, replica: () => replica! };
    });
    for (const r of replicas) {
      await r.t.start();
      await r.t.register(gvr, r.handler);
    }
    await replicas[0]!.t.waitFor(() => new Set(passes.map((p) => p.namespace)).size === NAMESPACES.length, { timeoutMs: 10_000 });
    for (const r of replicas) expect(r.replica()).toBeInstanceOf(ShardReplica);
    // Each pass ran on the replica whose share holds its namespace.
    for (const p of passes) {
      const owner = replicas.find((r) => r.identity === p.member)!.replica();
      expect(inRanges(fnv1a64(p.namespace), owner.gate.ranges())).toBe(true);
    }
    expect(replicas[0]!.replica().fencing).toBe(replicas[0]!.replica().membership.validity);
  });

  it('checks its options when built', () => {
    const base = { client: new FakeMemberLeaseClient(), namespace: 'default', group: 'webapp', identity: 'r0', key: 'namespace' as const };
    expect(() => shardingModule({ ...base, kubeConfig: undefined as never, mode: 'client' })).toThrow(/kubeConfig: is required/);
    expect(() =>
      shardingModule({
        ...base,
        source: new ShardedInformerSource(new FakeInformerSource(), { key: 'namespace' }),
        kubeConfig: undefined as never,
        mode: 'both' as never,
      }),
    ).toThrow(ShardingConfigError);
    expect(() =>
      shardingModule({
        ...base,
        source: new ShardedInformerSource(new FakeInformerSource(), { key: 'namespace' }),
        kubeConfig: undefined as never,
        mode: 'client',
        group: 'Bad_Group',
      }),
    ).toThrow(/group: must be a DNS label/);
  });
});
