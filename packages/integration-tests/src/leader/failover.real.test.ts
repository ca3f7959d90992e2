import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@protean/core/testing';
import { kubeRequest, startKubeApiServer, type KubeApiServer } from '@protean/envtest';

// client-go's defaults, which the replicas use.
const LEASE_DURATION_MS = 15_000;
const RETRY_PERIOD_MS = 2_000;
const JITTER = 1.2;
const NAMESPACE = 'failover';
const LEASE = 'failover-controller';
const INSTANCES = ['cm-0', 'cm-1', 'cm-2', 'cm-3'];

const source = fileURLToPath(new URL('./leaderReplica.ts', import.meta.url));
const script = fileURLToPath(new URL('../../dist/leader/leaderReplica.js', import.meta.url));

/** One pino line of a replica, with when the test read it. */
interface LogLine {
  readonly msg: string;
  readonly time: number;
  readonly replica: string;
  readonly audit?: 'pass-start' | 'pass-end';
  readonly instance?: string;
  readonly at?: number;
  readonly [field: string]: unknown;
}

/** A replica process: its parsed stdout, its stderr, how it ended. */
class Replica {
  readonly lines: LogLine[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;
  private buffer = '';

  constructor(
    readonly identity: string,
    kubeconfig: string,
  ) {
    this.child = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        PROTEAN_KUBECONFIG: kubeconfig,
        REPLICA_IDENTITY: identity,
        REPLICA_NAMESPACE: NAMESPACE,
        REPLICA_LEASE: LEASE,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  first(msg: string): LogLine | undefined {
    return this.lines.find((l) => l.msg === msg);
  }

  async waitForLine(msg: string, timeoutMs: number): Promise<LogLine> {
    await waitFor(() => this.first(msg) !== undefined || !this.running, {
      message: `${this.identity} to log "${msg}"`,
      timeoutMs,
      intervalMs: 20,
    });
    const line = this.first(msg);
    if (line === undefined)
      throw new Error(`${this.identity} exited before logging "${msg}"; stderr:\n${this.stderr}\nlast lines:\n${this.tail()}`);
    return line;
  }

  tail(n = 15): string {
    return this.lines
      .slice(-n)
      .map((l) => JSON.stringify(l))
      .join('\n');
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const text = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (text === '') continue;
      try {
        this.lines.push(JSON.parse(text) as LogLine);
      } catch {
        this.stderr += `${text}\n`;
      }
    }
  }
}

/** Every pass of every replica as [start, end] per instance; a pass cut short by SIGKILL ends at the kill. */
function passes(
  replicas: readonly Replica[],
  killedAt: ReadonlyMap<string, number>,
): Map<string, { replica: string; start: number; end: number }[]> {
  const out = new Map<string, { replica: string; start: number; end: number }[]>();
  for (const r of replicas) {
    const open = new Map<string, number>();
    for (const l of r.lines) {
      if (l.audit === undefined || l.instance === undefined || l.at === undefined) continue;
      if (l.audit === 'pass-start') open.set(l.instance, l.at);
      else {
        const start = open.get(l.instance);
        open.delete(l.instance);
        if (start !== undefined)
          (out.get(l.instance) ?? out.set(l.instance, []).get(l.instance)!).push({ replica: r.identity, start, end: l.at });
      }
    }
    for (const [instance, start] of open) {
      const end = killedAt.get(r.identity) ?? Number.POSITIVE_INFINITY;
      (out.get(instance) ?? out.set(instance, []).get(instance)!).push({ replica: r.identity, start, end });
    }
  }
  return out;
}

/** Passes of one instance on two replicas that overlap in time. */
function overlaps(all: Map<string, { replica: string; start: number; end: number }[]>): string[] {
  const found: string[] = [];
  for (const [instance, list] of all) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!;
      const cur = sorted[i]!;
      if (cur.replica !== prev.replica && cur.start < prev.end)
        found.push(`${instance}: ${prev.replica} [${prev.start},${prev.end}] and ${cur.replica} [${cur.start},${cur.end}]`);
    }
  }
  return found;
}

let server: KubeApiServer;
let dir: string;
let kubeconfig: string;
const replicas: Replica[] = [];
const killedAt = new Map<string, number>();

async function leaseSpec(): Promise<Record<string, unknown>> {
  const r = await kubeRequest(server.kubeConfig, 'GET', `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/${LEASE}`);
  return (r.json['spec'] ?? {}) as Record<string, unknown>;
}

function start(identity: string): Replica {
  const r = new Replica(identity, kubeconfig);
  replicas.push(r);
  return r;
}

beforeAll(async () => {
  if (!existsSync(script) || statSync(script).mtimeMs < statSync(source).mtimeMs) {
    throw new Error(`${script} is missing or older than its source: build first (npx tsc -b)`);
  }
  server = await startKubeApiServer();
  dir = mkdtempSync(join(tmpdir(), 'protean-failover-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeConfig.exportConfig());
  const ns = await kubeRequest(server.kubeConfig, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NAMESPACE } } });
  expect(ns.status).toBe(201);
  for (const name of INSTANCES) {
    const cm = await kubeRequest(server.kubeConfig, 'POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
      body: { metadata: { name }, data: { k: 'v' } },
    });
    expect(cm.status).toBe(201);
  }
});

afterAll(async () => {
  for (const r of replicas) if (r.running) r.kill('SIGKILL');
  await Promise.all(replicas.map((r) => r.exited));
  await server?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('leader election across controller processes on a real kube-apiserver (client-go timings)', () => {
  let a: Replica;
  let b: Replica;

  it('a leader killed with SIGKILL is replaced by the synced standby within the lease duration of its last renewal', async () => {
    a = start('replica-a');
    await a.waitForLine('leading: workers started', 30_000);
    await waitFor(() => a.lines.filter((l) => l.audit === 'pass-end').length >= INSTANCES.length, {
      message: 'a to reconcile',
      timeoutMs: 10_000,
    });
    b = start('replica-b');
    await b.waitForLine('replica registered its parents', 30_000);
    await b.waitForLine('the lease is held by replica-a', 10_000);
    // A standby reconciles nothing, with its informers synced.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(b.lines.filter((l) => l.audit !== undefined)).toEqual([]);
    expect(b.first('leading: workers started')).toBeUndefined();

    a.kill('SIGKILL');
    const killed = Date.now();
    killedAt.set(a.identity, killed);
    expect((await a.exited).signal).toBe('SIGKILL');
    const lastRenew = Date.parse(String((await leaseSpec())['renewTime']));
    const led = await b.waitForLine('leading: workers started', LEASE_DURATION_MS + 15_000);
    await waitFor(() => b.lines.some((l) => l.audit === 'pass-end'), { message: 'b to reconcile', timeoutMs: 10_000 });
    const firstPass = b.lines.find((l) => l.audit === 'pass-start')!.at!;

    const killToLead = led.time - killed;
    const renewToLead = led.time - lastRenew;
    console.log(
      `SIGKILL failover: kill -> new leader ${(killToLead / 1000).toFixed(2)} s, -> its first pass ${((firstPass - killed) / 1000).toFixed(2)} s; last renewal -> new leader ${(renewToLead / 1000).toFixed(2)} s (lease ${LEASE_DURATION_MS / 1000} s)`,
    );
    // Never before the dead leader's lease could have expired, and within it plus one jittered retry (and a margin for a busy machine).
    expect(renewToLead).toBeGreaterThanOrEqual(LEASE_DURATION_MS);
    expect(killToLead).toBeLessThan(LEASE_DURATION_MS + RETRY_PERIOD_MS * (1 + JITTER) + 5_000);
    expect(await leaseSpec()).toMatchObject({ holderIdentity: 'replica-b', leaseTransitions: 1 });
    expect(overlaps(passes(replicas, killedAt))).toEqual([]);
    // The standby saw the renewals through its watch of the lease, not by polling.
    expect(b.first('watching the lease failed; polling it until the watch is back')).toBeUndefined();
  });

  it('a leader stopped with SIGTERM drains, releases the lease and is replaced at once', async () => {
    const c = start('replica-c');
    await c.waitForLine('replica registered its parents', 30_000);
    await c.waitForLine('the lease is held by replica-b', 10_000);
    await new Promise((r) => setTimeout(r, 1_000));

    b.kill('SIGTERM');
    const stopped = Date.now();
    const exit = await b.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(b.first('released the lease')).toBeDefined();
    const led = await c.waitForLine('leading: workers started', LEASE_DURATION_MS);
    await waitFor(() => c.lines.some((l) => l.audit === 'pass-end'), { message: 'c to reconcile', timeoutMs: 10_000 });
    const firstPass = c.lines.find((l) => l.audit === 'pass-start')!.at!;
    const released = b.first('released the lease')!.time;

    const termToLead = led.time - stopped;
    console.log(
      `SIGTERM failover: SIGTERM -> new leader ${(termToLead / 1000).toFixed(2)} s, -> its first pass ${((firstPass - stopped) / 1000).toFixed(2)} s; release -> new leader ${((led.time - released) / 1000).toFixed(2)} s (old leader drained and exited after ${((released - stopped) / 1000).toFixed(2)} s)`,
    );
    // At once: one jittered retry after the release, far from a lease duration.
    expect(led.time - released).toBeLessThanOrEqual(RETRY_PERIOD_MS * (1 + JITTER) + 5_000);
    expect(termToLead).toBeLessThan(LEASE_DURATION_MS);
    expect(await leaseSpec()).toMatchObject({ holderIdentity: 'replica-c', leaseTransitions: 2 });
    expect(overlaps(passes(replicas, killedAt))).toEqual([]);
    const lastOfB = Math.max(...b.lines.filter((l) => l.audit === 'pass-end').map((l) => l.at!));
    expect(firstPass).toBeGreaterThan(lastOfB);
    expect(c.first('watching the lease failed; polling it until the watch is back')).toBeUndefined();
  });
});
