import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { kubeRequest, startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { KubeLeaseClient } from './KubeLeaseClient.js';
import type { Lease } from './Lease.js';
import type { LeaseClient } from './LeaseClient.js';
import { LeaseRequestError } from './LeaseRequestError.js';
import { LeaderElector } from './LeaderElector.js';

// Short timings so a step-down and an expiry take seconds: lease 3 s, renew deadline 2 s, retry 0.4 s.
const TIMING = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 };
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

let server: KubeApiServer;
const stops: AbortController[] = [];

beforeAll(async () => {
  server = await startKubeApiServer();
});

afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await new Promise((r) => setTimeout(r, 100));
});

afterAll(async () => {
  await server?.stop();
});

/** The lease client of one replica, whose calls fail while `cut` is set (a partition of that replica). */
class Partitioned implements LeaseClient {
  cut = false;
  constructor(private readonly inner: LeaseClient) {}
  get(namespace: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    return this.cut ? this.fail() : this.inner.get(namespace, name, signal);
  }
  create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.cut ? this.fail() : this.inner.create(lease, signal);
  }
  update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.cut ? this.fail() : this.inner.update(lease, signal);
  }
  private fail(): Promise<never> {
    return Promise.reject(new LeaseRequestError('update', 'partitioned', 'connect ECONNREFUSED', { reason: 'NetworkError' }));
  }
}

interface Replica {
  readonly elector: LeaderElector;
  readonly client: Partitioned;
  readonly stop: AbortController;
  readonly run: Promise<void>;
  readonly terms: { start: number; aborted?: number; end?: number }[];
}

function replica(identity: string, leaseName: string): Replica {
  const client = new Partitioned(new KubeLeaseClient(server.kubeConfig));
  const elector = new LeaderElector({ client, namespace: 'default', leaseName, identity, logger: silentLogger(), ...TIMING });
  const stop = new AbortController();
  stops.push(stop);
  const terms: Replica['terms'] = [];
  const run = elector.run(stop.signal, async (term) => {
    const t: Replica['terms'][number] = { start: Date.now() };
    terms.push(t);
    await new Promise<void>((resolve) => term.addEventListener('abort', () => resolve(), { once: true }));
    t.aborted = Date.now();
    t.end = Date.now();
  });
  run.catch(() => undefined);
  return { elector, client, stop, run, terms };
}

async function leaseSpec(name: string): Promise<Record<string, unknown>> {
  const r = await kubeRequest(server.kubeConfig, 'GET', `/apis/coordination.k8s.io/v1/namespaces/default/leases/${name}`);
  expect(r.status).toBe(200);
  return (r.json['spec'] ?? {}) as Record<string, unknown>;
}

describe('LeaderElector on a real kube-apiserver', () => {
  it('creates and renews a lease the real server accepts, with MicroTime times', async () => {
    const a = replica('replica-a', 'renewals');
    await waitFor(() => a.terms.length === 1, { message: 'a to lead', timeoutMs: 10_000 });
    const first = await leaseSpec('renewals');
    expect(first).toMatchObject({ holderIdentity: 'replica-a', leaseDurationSeconds: 3, leaseTransitions: 0 });
    expect(first['acquireTime']).toMatch(MICRO_TIME);
    expect(first['renewTime']).toMatch(MICRO_TIME);
    await waitFor(async () => (await leaseSpec('renewals'))['renewTime'] !== first['renewTime'], {
      message: 'a renewal',
      timeoutMs: 5_000,
    });
    const renewed = await leaseSpec('renewals');
    expect(renewed).toMatchObject({ holderIdentity: 'replica-a', acquireTime: first['acquireTime'], leaseTransitions: 0 });
  });

  it('hands over at once on a graceful stop: the lease is released and the standby takes it at its next try', async () => {
    const a = replica('replica-a', 'handover');
    await waitFor(() => a.terms.length === 1, { message: 'a to lead', timeoutMs: 10_000 });
    const b = replica('replica-b', 'handover');
    await waitFor(() => b.elector.observedLeader() === 'replica-a', { message: 'b to see a', timeoutMs: 5_000 });
    a.stop.abort();
    await a.run;
    const releasedAt = Date.now();
    expect(await leaseSpec('handover')).toMatchObject({ leaseDurationSeconds: 1, leaseTransitions: 0 });
    await waitFor(() => b.terms.length === 1, { message: 'b to lead', timeoutMs: 10_000 });
    expect(b.terms[0]!.start - releasedAt).toBeLessThan(TIMING.leaseDurationMs);
    expect(await leaseSpec('handover')).toMatchObject({ holderIdentity: 'replica-b', leaseDurationSeconds: 3, leaseTransitions: 1 });
  });

  it('a partitioned leader steps down at its renew deadline; the standby leads only after the lease expired', async () => {
    const a = replica('replica-a', 'partition');
    await waitFor(() => a.terms.length === 1, { message: 'a to lead', timeoutMs: 10_000 });
    const b = replica('replica-b', 'partition');
    await waitFor(() => b.elector.observedLeader() === 'replica-a', { message: 'b to see a', timeoutMs: 5_000 });
    const before = await leaseSpec('partition');
    a.client.cut = true;
    const cutAt = Date.now();
    await waitFor(() => b.terms.length === 1, { message: 'b to lead', timeoutMs: 15_000 });
    // a renewed at least this late (it may have renewed once more before the cut).
    const lastRenew = Date.parse(String(before['renewTime']));
    expect(a.terms[0]!.end).toBeDefined();
    // a stopped before b started, and b started no earlier than a lease duration after a's last renewal.
    expect(a.terms[0]!.end!).toBeLessThan(b.terms[0]!.start);
    expect(a.terms[0]!.aborted! - cutAt).toBeLessThanOrEqual(TIMING.renewDeadlineMs + 1_000);
    expect(b.terms[0]!.start).toBeGreaterThanOrEqual(lastRenew + TIMING.leaseDurationMs - 50);
    expect(await leaseSpec('partition')).toMatchObject({ holderIdentity: 'replica-b', leaseTransitions: 1 });
    a.client.cut = false;
    await new Promise((r) => setTimeout(r, 1_500));
    expect(a.terms).toHaveLength(1);
    expect(a.elector.observedLeader()).toBe('replica-b');
  });
});
