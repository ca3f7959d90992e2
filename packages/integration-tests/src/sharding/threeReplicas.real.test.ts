import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { gvrKey } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { kubeRequest, startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { assignShards, fnv1a64, inRanges, type HashRange } from '@protean/sharding';
import { CHILD_SUFFIX, CONFIGMAPS, overlaps, parseAudit, PARENTS, passesOf, type Pass, type ReplicaReport } from './shardAudit.js';

// ShardMembership's defaults, which the replicas use: a killed replica's share is taken over one lease duration
// after its last renewal, noticed at the survivors' next step.
const LEASE_DURATION_MS = 15_000;
const RETRY_PERIOD_MS = 2_000;
// Room for the new owners' informers to list their new share (a "sync") on a busy 2-core machine.
const SYNC_ALLOWANCE_MS = 10_000;
const NAMESPACES = Array.from({ length: 30 }, (_, i) => `shard-${String(i).padStart(2, '0')}`);
const PER_NAMESPACE = 10;
const LEASE_NAMESPACE = 'shard-system';
const GROUP = 'shard-ctl';
const PARENT_KEYS = NAMESPACES.flatMap((ns) => Array.from({ length: PER_NAMESPACE }, (_, i) => `${ns}/p-${i}`)).sort();
// Touches go round the namespaces (p-0 of each, then p-1 ...), so every share has parents touched before and after the kill.
const TOUCH_ORDER = Array.from({ length: PER_NAMESPACE }, (_, i) => NAMESPACES.map((ns) => `${ns}/p-${i}`)).flat();

const source = fileURLToPath(new URL('./shardReplica.ts', import.meta.url));
const script = fileURLToPath(new URL('../../dist/sharding/shardReplica.js', import.meta.url));

const namespaceOf = (key: string): string => key.slice(0, key.indexOf('/'));
const toRanges = (hex: ReplicaReport['ranges']): HashRange[] => hex.map(([s, e]) => ({ start: BigInt(`0x${s}`), end: BigInt(`0x${e}`) }));
const hexOf = (ranges: readonly HashRange[]): [string, string][] => ranges.map((r) => [r.start.toString(16), r.end.toString(16)]);
const inShare = (ranges: readonly HashRange[]) => (key: string) => inRanges(fnv1a64(namespaceOf(key)), ranges);
const sorted = (keys: readonly string[] | undefined): string[] => [...(keys ?? [])].sort();

/** A replica process: its stdout lines (pino JSON), its stderr, its IPC reports. */
class Replica {
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, (r: ReplicaReport) => void>();

  constructor(
    readonly identity: string,
    env: Record<string, string>,
  ) {
    this.child = fork(script, [], {
      execArgv: [],
      env: { ...process.env, ...env, REPLICA_IDENTITY: identity },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.lines.push(...chunk.split('\n').filter((l) => l !== '')));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.ready = new Promise((resolve, reject) => {
      this.child.on('message', (msg: { type?: string } & Partial<ReplicaReport>) => {
        if (msg.type === 'ready') resolve();
        else if (typeof msg.id === 'number') this.pending.get(msg.id)?.(msg as ReplicaReport);
      });
      void this.exited.then(() => reject(new Error(`${identity} exited before it was ready; stderr:\n${this.stderr}\n${this.tail()}`)));
    });
    this.ready.catch(() => {});
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Asks the replica for its ranges, members and informer contents. */
  report(): Promise<ReplicaReport> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.identity} did not report within 10 s; ${this.tail()}`)), 10_000);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(r);
      });
      this.child.send({ type: 'report', id });
    });
  }

  tail(n = 10): string {
    return this.lines.slice(-n).join('\n');
  }
}

/** `fn(i)` for i in [0, n) with at most `concurrency` in flight. */
async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function created(kc: KubeConfig, path: string, body: unknown): Promise<void> {
  const r = await kubeRequest(kc, 'POST', path, { body });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text.slice(0, 200)}`);
}

async function seed(server: KubeApiServer): Promise<void> {
  const kc = server.kubeConfig;
  await created(kc, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    metadata: { name: `${PARENTS.resource}.${PARENTS.group}` },
    spec: {
      group: PARENTS.group,
      scope: 'Namespaced',
      names: { plural: PARENTS.resource, singular: 'shardparent', kind: 'ShardParent', listKind: 'ShardParentList' },
      versions: [
        {
          name: PARENTS.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
  const parents = `/apis/${PARENTS.group}/${PARENTS.version}`;
  await waitFor(async () => (await kubeRequest(kc, 'GET', `${parents}/${PARENTS.resource}?limit=1`)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 100,
    message: 'the parent CRD served',
  });
  for (const ns of [LEASE_NAMESPACE, ...NAMESPACES]) await created(kc, '/api/v1/namespaces', { metadata: { name: ns } });
  await pool(PARENT_KEYS.length, 16, async (i) => {
    const [ns, name] = PARENT_KEYS[i]!.split('/') as [string, string];
    await created(kc, `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `${name}${CHILD_SUFFIX}` }, data: { of: name } });
    await created(kc, `${parents}/namespaces/${ns}/${PARENTS.resource}`, {
      apiVersion: `${PARENTS.group}/${PARENTS.version}`,
      kind: 'ShardParent',
      metadata: { name },
      spec: { touch: 0 },
    });
  });
}

/** Bumps `spec.touch` of the parent (a new generation); calls `onEach` after each response. */
async function touchAll(kc: KubeConfig, value: number, onEach: (done: number) => void = () => {}): Promise<void> {
  let done = 0;
  await pool(TOUCH_ORDER.length, 16, async (i) => {
    const [ns, name] = TOUCH_ORDER[i]!.split('/') as [string, string];
    const r = await kubeRequest(kc, 'PATCH', `/apis/${PARENTS.group}/${PARENTS.version}/namespaces/${ns}/${PARENTS.resource}/${name}`, {
      body: { spec: { touch: value } },
      contentType: 'application/merge-patch+json',
    });
    if (r.status !== 200) throw new Error(`touching ${TOUCH_ORDER[i]}: ${r.status} ${r.text.slice(0, 200)}`);
    onEach(++done);
  });
}

/** Every key the server holds, per resource: the universe the shards split. */
async function universe(kc: KubeConfig): Promise<Record<string, string[]>> {
  const keys = async (path: string): Promise<string[]> => {
    const r = await kubeRequest(kc, 'GET', path);
    const items = r.json['items'] as { metadata: { namespace: string; name: string } }[];
    return items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
  };
  return {
    [gvrKey(PARENTS)]: await keys(`/apis/${PARENTS.group}/${PARENTS.version}/${PARENTS.resource}`),
    [gvrKey(CONFIGMAPS)]: await keys('/api/v1/configmaps'),
  };
}

function shardedSuite(gate: boolean): void {
  let server: KubeApiServer;
  let dir: string;
  let auditFile: string;
  let allNamespaces: string[];
  const replicas = new Map<string, Replica>();
  const killedAt = new Map<string, number>();
  const now = (): number => performance.timeOrigin + performance.now();

  const readPasses = (): Pass[] => {
    const text = readFileSync(auditFile, 'utf8');
    return passesOf(parseAudit(text.slice(0, text.lastIndexOf('\n') + 1)), killedAt);
  };
  const start = (identity: string): Replica => {
    const r = new Replica(identity, {
      PROTEAN_KUBECONFIG: join(dir, 'kubeconfig'),
      REPLICA_AUDIT: auditFile,
      REPLICA_LEASE_NAMESPACE: LEASE_NAMESPACE,
      REPLICA_GROUP: GROUP,
    });
    replicas.set(identity, r);
    return r;
  };
  const live = (): Replica[] => [...replicas.values()].filter((r) => r.running);
  /** Waits until every live replica reports `members` and the ranges `assignShards(members)` gives it. */
  const settled = async (members: string[], timeoutMs: number): Promise<Map<string, ReplicaReport>> => {
    const want = assignShards(members, allNamespaces);
    let reports = new Map<string, ReplicaReport>();
    await waitFor(
      async () => {
        reports = new Map((await Promise.all(live().map((r) => r.report()))).map((r) => [r.identity, r]));
        return members.every((m) => {
          const r = reports.get(m);
          return (
            r !== undefined &&
            r.members.join() === members.join() &&
            JSON.stringify(r.ranges) === JSON.stringify(hexOf(want.get(m)!)) &&
            r.liveRawInformers === 2 &&
            r.synced
          );
        });
      },
      { timeoutMs, intervalMs: 250, message: `replicas to settle on members ${members.join(', ')}` },
    );
    return reports;
  };

  beforeAll(async () => {
    if (!existsSync(script) || statSync(script).mtimeMs < statSync(source).mtimeMs) {
      throw new Error(`${script} is missing or older than its source: build first (npx tsc -b)`);
    }
    server = await startKubeApiServer(gate ? { extraArgs: ['--feature-gates=ShardedListAndWatch=true'] } : {});
    dir = mkdtempSync(join(tmpdir(), 'protean-shards-'));
    auditFile = join(dir, 'audit.jsonl');
    writeFileSync(auditFile, '');
    writeFileSync(join(dir, 'kubeconfig'), server.kubeConfig.exportConfig());
    await seed(server);
    const ns = await kubeRequest(server.kubeConfig, 'GET', '/api/v1/namespaces');
    allNamespaces = (ns.json['items'] as { metadata: { name: string } }[]).map((n) => n.metadata.name).sort();
  });

  afterAll(async () => {
    for (const r of replicas.values()) if (r.running) r.kill('SIGKILL');
    await Promise.all([...replicas.values()].map((r) => r.exited));
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** What each replica logged last and what the audit holds: appended to a failure. */
  const diagnose = (err: unknown): never => {
    let audit: string;
    try {
      const passes = readPasses();
      audit = `${passes.length} passes of ${new Set(passes.map((p) => p.instance)).size} parents; per replica ${JSON.stringify(
        Object.fromEntries([...replicas.keys()].map((id) => [id, passes.filter((p) => p.replica === id).length])),
      )}`;
    } catch (e) {
      audit = `unreadable: ${String(e)}`;
    }
    const tails = [...replicas.values()].map((r) => `--- ${r.identity} (running ${r.running})\n${r.stderr.slice(-2000)}${r.tail(8)}`);
    if (err instanceof Error) err.message += `\naudit: ${audit}\n${tails.join('\n')}`;
    throw err;
  };

  it(
    'three replicas reconcile 300 parents over 30 namespaces in disjoint shares; after a kill -9 and a fourth replica every ' +
      'parent is reconciled again within the lease duration plus a sync, with no overlapping passes',
    () => scenario().catch(diagnose),
    240_000,
  );

  async function scenario(): Promise<void> {
    const first = ['replica-a', 'replica-b', 'replica-c'];
    // A rolling start: each replica joins once the ones before it settled, so replica-a first caches everything,
    // then its share shrinks twice (and replica-b's once): the caches must narrow with it.
    const rolling: Record<string, number[]> = {};
    for (let i = 0; i < first.length; i++) {
      const id = first[i]!;
      await start(id).ready;
      const members = first.slice(0, i + 1);
      const reports = await settled(members, 30_000);
      for (const m of members) rolling[m] = [...(rolling[m] ?? []), reports.get(m)!.cached[gvrKey(PARENTS)]?.length ?? 0];
    }
    const joinedAt = now();
    process.stdout.write(
      `parents cached per replica during the rolling start (1, 2, 3 members), gate ${gate ? 'on' : 'off'}: ${JSON.stringify(rolling)}\n`,
    );
    const reports = await settled(first, 30_000);
    // Each replica has reconciled every parent of its final share (the ones that joined later: as they entered it).
    const unreconciled = (): string[] => {
      const passes = readPasses().filter((p) => !p.open);
      return first.flatMap((id) => {
        const done = new Set(passes.filter((p) => p.replica === id).map((p) => p.instance));
        return PARENT_KEYS.filter(inShare(toRanges(reports.get(id)!.ranges))).filter((k) => !done.has(k));
      });
    };
    await waitFor(() => unreconciled().length === 0, {
      timeoutMs: 60_000,
      intervalMs: 100,
      message: 'every replica to reconcile every parent of its share',
    });
    const everything = await universe(server.kubeConfig);
    const expectedMode = gate ? 'server' : 'client';

    // The split: each replica caches exactly its share (server-side, the API server sent only that; client-side, the
    // filter in front of the informer dropped the rest of every list).
    const split: Record<string, Record<string, { cached: number; shown: number; filteredOut: number }>> = {};
    const handled = readPasses();
    for (const id of first) {
      const r = reports.get(id)!;
      expect(r.mode).toBe(expectedMode);
      const owns = inShare(toRanges(r.ranges));
      split[id] = {};
      for (const [gvr, all] of Object.entries(everything)) {
        const share = all.filter(owns);
        expect(share.length).toBeGreaterThan(0);
        expect(sorted(r.shown[gvr])).toEqual(share);
        expect(sorted(r.cached[gvr])).toEqual(share);
        if (!gate) expect(r.filteredOut[gvr]).toBeGreaterThanOrEqual(all.length - share.length);
        split[id][gvr] = { cached: r.cached[gvr]!.length, shown: r.shown[gvr]!.length, filteredOut: r.filteredOut[gvr] ?? 0 };
      }
      // It reconciled every parent of its share (earlier members also those of the wider shares they had before the
      // later ones joined); once all three had joined, its handler ran only for its share.
      const mine = handled.filter((p) => p.replica === id);
      expect([...new Set(mine.map((p) => p.instance))]).toEqual(expect.arrayContaining(everything[gvrKey(PARENTS)]!.filter(owns)));
      expect(mine.filter((p) => p.start > joinedAt && !owns(p.instance))).toEqual([]);
    }
    for (const gvr of Object.keys(everything)) {
      const shown = first.flatMap((id) => reports.get(id)!.shown[gvr]!);
      expect(shown.length).toBe(everything[gvr]!.length);
      expect(sorted(shown)).toEqual(everything[gvr]);
      expect(sorted(first.flatMap((id) => reports.get(id)!.cached[gvr]!))).toEqual(everything[gvr]);
    }
    process.stdout.write(`objects per replica, 3 replicas, gate ${gate ? 'on' : 'off'}: ${JSON.stringify(split)}\n`);

    // Touch every parent; a third of the way through, kill -9 replica-b and start replica-d.
    const victim = replicas.get('replica-b')!;
    const victimShare = inShare(toRanges(reports.get('replica-b')!.ranges));
    let killed = 0;
    // Before the first PATCH is sent: a pass may end before the test reads the PATCH's response.
    const touchedAt = now();
    const touching = touchAll(server.kubeConfig, 1, (done) => {
      if (done !== Math.floor(PARENT_KEYS.length / 3)) return;
      victim.kill('SIGKILL');
      killed = now();
      killedAt.set(victim.identity, killed);
      start('replica-d');
    });
    await touching;
    const touchesDoneAt = now();
    expect((await victim.exited).signal).toBe('SIGKILL');
    const postTouch = (): Map<string, Pass> => {
      const firstDone = new Map<string, Pass>();
      for (const p of readPasses()) {
        if (p.open || p.generation < 2) continue;
        const before = firstDone.get(p.instance);
        if (before === undefined || p.end < before.end) firstDone.set(p.instance, p);
      }
      return firstDone;
    };
    await waitFor(() => postTouch().size === PARENT_KEYS.length, {
      timeoutMs: LEASE_DURATION_MS + 60_000,
      intervalMs: 100,
      message: 'every parent reconciled after the touch',
    });
    const again = postTouch();
    const latest = Math.max(...[...again.values()].map((p) => p.end));
    const victims = [...again.values()].filter((p) => victimShare(p.instance) && p.replica !== victim.identity);
    const takeover = victims.length === 0 ? undefined : Math.min(...victims.map((p) => p.start));
    const takeoverDone = victims.length === 0 ? undefined : Math.max(...victims.map((p) => p.end));
    const s = (ms: number | undefined): string => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(2)} s`);
    process.stdout.write(
      `kill -9 (gate ${gate ? 'on' : 'off'}, lease ${LEASE_DURATION_MS / 1000} s, retry ${RETRY_PERIOD_MS / 1000} s): ` +
        `touches ${s(touchesDoneAt - touchedAt)}; ${victims.length} parents of the killed replica's share reconciled by others, ` +
        `first ${s(takeover === undefined ? undefined : takeover - killed)} and last ${s(takeoverDone === undefined ? undefined : takeoverDone - killed)} after the kill; ` +
        `every parent reconciled again ${s(latest - killed)} after the kill\n`,
    );
    // The killed replica had not reconciled its whole share of the touch: others did, after it was counted out.
    expect(victims.length).toBeGreaterThan(0);
    expect(latest - killed).toBeLessThan(LEASE_DURATION_MS + 2 * RETRY_PERIOD_MS + SYNC_ALLOWANCE_MS);
    for (const p of again.values()) expect(p.end).toBeGreaterThan(touchedAt);

    // The survivors and the newcomer settle on a three-way split.
    const after = ['replica-a', 'replica-c', 'replica-d'];
    const finalReports = await settled(after, LEASE_DURATION_MS + 30_000);
    const finalSplit: Record<string, Record<string, { cached: number; shown: number }>> = {};
    for (const id of after) {
      const r = finalReports.get(id)!;
      const owns = inShare(toRanges(r.ranges));
      finalSplit[id] = {};
      for (const [gvr, all] of Object.entries(everything)) {
        expect(sorted(r.shown[gvr])).toEqual(all.filter(owns));
        // Also a share that only shrank caches exactly the share.
        expect(sorted(r.cached[gvr])).toEqual(all.filter(owns));
        finalSplit[id][gvr] = { cached: r.cached[gvr]!.length, shown: r.shown[gvr]!.length };
      }
    }
    process.stdout.write(
      `objects per replica after the kill and the fourth replica, gate ${gate ? 'on' : 'off'}: ${JSON.stringify(finalSplit)}\n`,
    );

    // Once settled, one more touch is reconciled once per parent, by its owner only.
    const settledAt = now();
    await touchAll(server.kubeConfig, 2);
    await waitFor(
      () =>
        new Set(
          readPasses()
            .filter((p) => !p.open && p.generation >= 3)
            .map((p) => p.instance),
        ).size === PARENT_KEYS.length,
      {
        timeoutMs: 30_000,
        intervalMs: 100,
        message: 'every parent reconciled after the second touch',
      },
    );
    await waitFor(() => readPasses().every((p) => !p.open || killedAt.has(p.replica)), { timeoutMs: 10_000, message: 'no pass in flight' });
    for (const p of readPasses().filter((q) => q.start > settledAt)) {
      expect(inShare(toRanges(finalReports.get(p.replica)!.ranges))(p.instance)).toBe(true);
    }

    // The whole audit: no two replicas ever ran a pass of one parent at the same time.
    const all = readPasses();
    const found = overlaps(all);
    process.stdout.write(
      `audit (gate ${gate ? 'on' : 'off'}): ${all.length} passes, ${found.length} overlapping\n${found.slice(0, 10).join('\n')}\n`,
    );
    expect(found).toEqual([]);

    // A graceful stop drains, releases the member lease and exits 0.
    for (const id of after) replicas.get(id)!.kill('SIGTERM');
    for (const id of after) expect(await replicas.get(id)!.exited).toEqual({ code: 0, signal: null });
  }
}

describe('three sharded controller processes on kube-apiserver with ShardedListAndWatch on', () => {
  shardedSuite(true);
});

describe('three sharded controller processes on kube-apiserver with ShardedListAndWatch off', () => {
  shardedSuite(false);
});
