import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InformerCache, ListWatch, PartialObjectMetadata } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { createTestController, type TestController } from '@protean/testing';
import { kubeRequest, startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { KubernetesListWatch, runInformer } from '@protean/watch-manager';
import { type InformerListener } from '@protean/watch-manager/internal';
import { assignShards, equalShards, keysPerMember } from './assignShards.js';
import { detectShardSelectorSupport, type ShardFilterMode } from './detectShardSelectorSupport.js';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges, shardSelector } from './HashRange.js';
import { kubeShardInformerSource } from './kubeShardInformerSource.js';
import { KubeMemberLeaseClient } from './MemberLeaseClient.js';
import { ShardGate } from './ShardGate.js';
import { ShardMembership } from './ShardMembership.js';

// Ten namespaces: the eight one-letter ones (which all hash into one quarter) and two longer names.
const NAMESPACES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'team-delta', 'payments'];
const PER_NAMESPACE = 3;
const MEMBERS = ['replica-0', 'replica-1', 'replica-2'];
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const shares = assignShards(MEMBERS, NAMESPACES);

const id = (o: PartialObjectMetadata): string => `${o.metadata.namespace}/${o.metadata.name}`;

async function seed(server: KubeApiServer): Promise<string[]> {
  const all: string[] = [];
  for (const ns of NAMESPACES) {
    const r = await kubeRequest(server.kubeConfig, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
    expect(r.status).toBe(201);
    for (let i = 0; i < PER_NAMESPACE; i++) {
      const name = `cm-${i}`;
      const c = await kubeRequest(server.kubeConfig, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name } } });
      expect(c.status).toBe(201);
      all.push(`${ns}/${name}`);
    }
  }
  // The universe is every ConfigMap, also those the API server keeps in kube-system.
  const list = await kubeRequest(server.kubeConfig, 'GET', '/api/v1/configmaps');
  const items = (list.json['items'] as PartialObjectMetadata[]).map(id);
  expect(items).toEqual(expect.arrayContaining(all));
  return items.sort();
}

function shareOf(member: string, objects: readonly string[]): string[] {
  return objects.filter((o) => inRanges(fnv1a64(o.split('/')[0]!), shares.get(member)!)).sort();
}

function listed(informer: InformerCache): string[] {
  return informer.list().map(id).sort();
}

/** Runs the informer engine over `listWatch` and waits until it has synced. */
async function synced(listWatch: ListWatch, stops: AbortController[], listener: InformerListener = {}): Promise<InformerCache> {
  const stop = new AbortController();
  stops.push(stop);
  const informer = runInformer(listWatch, listener, stop.signal);
  await waitFor(() => informer.hasSynced(), { message: `${informer.gvr.resource} synced` });
  return informer;
}

function shardedSuite(gate: boolean, expected: ShardFilterMode): void {
  let server: KubeApiServer;
  let objects: string[];
  const stops: AbortController[] = [];

  beforeAll(async () => {
    server = await startKubeApiServer(gate ? { extraArgs: ['--feature-gates=ShardedListAndWatch=true'] } : {});
    objects = await seed(server);
  });

  afterAll(async () => {
    for (const s of stops.splice(0)) s.abort();
    await server?.stop();
  });

  it(`detects the '${expected}' mode`, async () => {
    expect((await detectShardSelectorSupport(server.kubeConfig)).mode).toBe(expected);
  });

  it('splits 30 objects over 10 namespaces into 3 shards whose caches hold exactly their share, and whose union is everything', async () => {
    const mode = (await detectShardSelectorSupport(server.kubeConfig)).mode;
    const union: string[] = [];
    const counts: Record<string, { raw: number; shard: number }> = {};
    for (const member of MEMBERS) {
      const ranges = shares.get(member)!;
      const want = shareOf(member, objects);
      expect(want.length).toBeGreaterThan(0);
      // What the informer caches with the selector on the wire (the server filters, or ignores it).
      const raw = await synced(
        new KubernetesListWatch(CONFIGMAPS, { kubeConfig: server.kubeConfig, shardSelector: shardSelector('namespace', ranges) }),
        stops,
      );
      expect(listed(raw)).toEqual(gate ? want : objects);
      // What a shard's informer shows its handlers, in either mode.
      const shard = await synced(
        kubeShardInformerSource({ kubeConfig: server.kubeConfig, key: 'namespace', ranges, mode }).createListWatch(CONFIGMAPS),
        stops,
      );
      expect(listed(shard)).toEqual(want);
      counts[member] = { raw: raw.list().length, shard: shard.list().length };
      union.push(...listed(shard));
    }
    expect(union.sort()).toEqual(objects);
    process.stdout.write(`objects cached per shard (gate ${gate ? 'on' : 'off'}, mode ${mode}): ${JSON.stringify(counts)}\n`);
  });

  it('delivers watch events of a shard only for its share', async () => {
    const mode = (await detectShardSelectorSupport(server.kubeConfig)).mode;
    const seen = new Map<string, string[]>();
    for (const member of MEMBERS) {
      const list: string[] = [];
      seen.set(member, list);
      const lw = kubeShardInformerSource({
        kubeConfig: server.kubeConfig,
        key: 'namespace',
        ranges: shares.get(member)!,
        mode,
      }).createListWatch(CONFIGMAPS);
      await synced(lw, stops, { onAdd: (o, initial) => void (initial ? undefined : list.push(id(o))) });
    }
    const created: string[] = [];
    for (const ns of NAMESPACES) {
      const r = await kubeRequest(server.kubeConfig, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { metadata: { name: 'late' } },
      });
      expect(r.status).toBe(201);
      created.push(`${ns}/late`);
    }
    await waitFor(() => [...seen.values()].flat().length === created.length, { message: 'every late object seen once' });
    for (const member of MEMBERS) expect(seen.get(member)!.sort()).toEqual(shareOf(member, created));
  });
  it('shards on the uid too: 3 equal fractions of the hash space, each cached exactly, together everything', async () => {
    const mode = (await detectShardSelectorSupport(server.kubeConfig)).mode;
    const byUid = equalShards(MEMBERS);
    const union: string[] = [];
    for (const member of MEMBERS) {
      const informer = await synced(
        kubeShardInformerSource({ kubeConfig: server.kubeConfig, key: 'uid', ranges: byUid.get(member)!, mode }).createListWatch(
          CONFIGMAPS,
        ),
        stops,
      );
      for (const o of informer.list()) expect(inRanges(fnv1a64(o.metadata.uid!), byUid.get(member)!)).toBe(true);
      union.push(...listed(informer));
    }
    const everything = await kubeRequest(server.kubeConfig, 'GET', '/api/v1/configmaps');
    expect(union.sort()).toEqual((everything.json['items'] as PartialObjectMetadata[]).map(id).sort());
    if (gate) {
      const raw = await synced(
        new KubernetesListWatch(CONFIGMAPS, {
          kubeConfig: server.kubeConfig,
          shardSelector: shardSelector('uid', byUid.get(MEMBERS[0]!)!),
        }),
        stops,
      );
      for (const o of raw.list()) expect(inRanges(fnv1a64(o.metadata.uid!), byUid.get(MEMBERS[0]!)!)).toBe(true);
    }
  });

  it("moves a shard's informer to other ranges at runtime: deletes for what left, adds for what entered", async () => {
    const mode = (await detectShardSelectorSupport(server.kubeConfig)).mode;
    const source = kubeShardInformerSource({ kubeConfig: server.kubeConfig, key: 'namespace', ranges: shares.get(MEMBERS[0]!)!, mode });
    const shown = new Set<string>();
    const informer = await synced(source.createListWatch(CONFIGMAPS), stops, {
      onAdd: (o) => void shown.add(id(o)),
      onDelete: (o) => void shown.delete('key' in o ? o.key : id(o)),
    });
    const current = (): string[] => objects.filter((o) => !o.endsWith('/late'));
    expect([...shown].filter((o) => !o.endsWith('/late')).sort()).toEqual(shareOf(MEMBERS[0]!, current()));
    source.setRanges(shares.get(MEMBERS[1]!)!);
    await waitFor(() => listed(informer).length > 0 && [...shown].every((o) => shareOf(MEMBERS[1]!, [o]).length === 1), {
      message: 'the handler shown only the new share',
    });
    expect(listed(informer)).toEqual(expect.arrayContaining(shareOf(MEMBERS[1]!, current())));
    expect([...shown].sort()).toEqual(listed(informer));
  });

  it('agrees on members and shares through one labelled Lease per replica, and drops a released one', async () => {
    const client = new KubeMemberLeaseClient(server.kubeConfig);
    const group = `g${gate ? 'on' : 'off'}`;
    const replicas = MEMBERS.map(
      (identity) => new ShardMembership({ client, namespace: 'default', group, identity, keys: () => NAMESPACES }),
    );
    const signal = new AbortController().signal;
    // Join and claim, then start once no other lease holds the range (the first member's first view held everything).
    for (let round = 0; round < 3; round++) for (const r of replicas) await r.step(signal);
    for (const r of replicas) {
      expect(r.members()).toEqual(MEMBERS);
      expect(r.ranges()).toEqual(shares.get(r.identity));
    }
    await replicas[2]!.release();
    await replicas[0]!.step(signal);
    expect(replicas[0]!.members()).toEqual(MEMBERS.slice(0, 2));
    expect(replicas[0]!.status().assigned).toEqual(assignShards(MEMBERS.slice(0, 2), NAMESPACES).get(MEMBERS[0]!));
    // r0's new share reaches into r1's old one: r1 gives it up and releases it, then r0 starts it.
    for (let round = 0; round < 2; round++) for (const r of replicas.slice(0, 2).reverse()) await r.step(signal);
    expect(replicas[0]!.ranges()).toEqual(assignShards(MEMBERS.slice(0, 2), NAMESPACES).get(MEMBERS[0]!));
    // The released lease was removed (a delete guarded by its resourceVersion).
    const gone = await kubeRequest(
      server.kubeConfig,
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/default/leases/${replicas[2]!.leaseName}`,
    );
    expect(gone.status).toBe(404);
    const left = await client.list('default', `sharding.protean.dev/group=${group}`, signal);
    expect(left.map((l) => l.spec?.holderIdentity).sort()).toEqual(MEMBERS.slice(0, 2));
  });
  it('three DynamicController replicas reconcile disjoint shares; when one stops, the other two take its share over', async () => {
    const mode = (await detectShardSelectorSupport(server.kubeConfig)).mode;
    const client = new KubeMemberLeaseClient(server.kubeConfig);
    const group = `ctl-${gate ? 'on' : 'off'}`;
    const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 200 };
    const passes: { member: string; object: string; start: number; end: number }[] = [];
    const controllers: TestController<ReturnType<typeof kubeShardInformerSource>>[] = [];
    const replicas = MEMBERS.map((identity) => {
      const membership = new ShardMembership({ client, namespace: 'default', group, identity, keys: () => NAMESPACES, ...timing });
      const source = kubeShardInformerSource({ kubeConfig: server.kubeConfig, key: 'namespace', ranges: [], mode });
      const shardGate = new ShardGate({ key: 'namespace', validity: membership.validity });
      const t = createTestController({ source, config: { workers: 2 } });
      controllers.push(t);
      const handler = shardGate.wrap(async (item) => {
        const start = performance.now();
        await new Promise((r) => setImmediate(r));
        passes.push({ member: identity, object: `${item.namespace}/${item.name}`, start, end: performance.now() });
      });
      return {
        identity,
        membership,
        source,
        shardGate,
        t,
        handler,
        stop: new AbortController(),
        running: undefined as Promise<void> | undefined,
      };
    });
    try {
      const signal = new AbortController().signal;
      for (let round = 0; round < 3; round++) for (const r of replicas) await r.membership.step(signal);
      for (const r of replicas) {
        await r.shardGate.setRanges(r.membership.ranges());
        r.source.setRanges(r.membership.ranges());
        await r.t.start();
        await r.t.register(CONFIGMAPS, r.handler);
        r.running = r.membership.run(r.stop.signal, async ({ ranges }) => {
          await r.shardGate.setRanges(ranges);
          r.source.setRanges(ranges);
        });
      }
      const seeded = objects.filter((o) => NAMESPACES.includes(o.split('/')[0]!));
      const reconciledBy = (member: string, object: string): boolean => passes.some((p) => p.member === member && p.object === object);
      await waitFor(() => seeded.every((o) => MEMBERS.some((m) => shareOf(m, [o]).length === 1 && reconciledBy(m, o))), {
        timeoutMs: 30_000,
        message: 'every object reconciled by its owner',
      });
      for (const p of passes) expect(shareOf(p.member, [p.object])).toHaveLength(1);
      const perMember = Object.fromEntries(
        MEMBERS.map((m) => [m, new Set(passes.filter((p) => p.member === m).map((p) => p.object)).size]),
      );

      // replica-2 stops: it drains and releases its lease; the others see it gone at their next step.
      const leaver = replicas[2]!;
      const before = passes.length;
      const leftAt = performance.now();
      leaver.stop.abort();
      await leaver.running;
      const releasedAt = performance.now();
      const after = assignShards(MEMBERS.slice(0, 2), NAMESPACES);
      const moved = seeded.filter((o) => inRanges(fnv1a64(o.split('/')[0]!), shares.get(leaver.identity)!));
      await waitFor(
        () =>
          moved.every((o) => passes.slice(before).some((p) => p.object === o && inRanges(fnv1a64(o.split('/')[0]!), after.get(p.member)!))),
        { timeoutMs: 30_000, message: "the leaver's share reconciled by its new owners" },
      );
      const takeoverMs = Math.round(performance.now() - leftAt);
      // A pass already running when replica-2 was told to leave may end after that (it drains before the ranges
      // are released); none of its passes may start or still run once it has left.
      expect(passes.filter((p) => p.member === leaver.identity && p.end > releasedAt)).toEqual([]);
      // The audit: no two replicas ever ran a pass of one object at the same time.
      let overlaps = 0;
      for (const a of passes)
        for (const b of passes) if (a.member < b.member && a.object === b.object && a.start < b.end && b.start < a.end) overlaps++;
      expect(overlaps).toBe(0);
      process.stdout.write(
        `controllers (gate ${gate ? 'on' : 'off'}): objects reconciled per replica ${JSON.stringify(perMember)}; ${moved.length} moved on a leave, taken over in ${takeoverMs} ms; overlaps ${overlaps}\n`,
      );
    } finally {
      for (const r of replicas) r.stop.abort();
      await Promise.all(replicas.map((r) => r.running));
      for (const t of controllers) await t.dispose();
    }
  });
}

describe('sharding on kube-apiserver with ShardedListAndWatch on', () => {
  shardedSuite(true, 'server');
});

describe('sharding on kube-apiserver with ShardedListAndWatch off', () => {
  shardedSuite(false, 'client');
});

it('balances the namespaces where equal fractions do not', () => {
  const balanced = [...keysPerMember(shares, NAMESPACES).values()];
  const equal = [...keysPerMember(equalShards(MEMBERS), NAMESPACES).values()];
  process.stdout.write(`namespaces per shard: balanced ${JSON.stringify(balanced)}, equal fractions ${JSON.stringify(equal)}\n`);
  expect(Math.max(...balanced) - Math.min(...balanced)).toBeLessThanOrEqual(1);
});
