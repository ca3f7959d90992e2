import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { LeaderElector } from './LeaderElector.js';

// Short timings so the test runs in a few seconds of real time: lease 2 s, deadline 1.5 s, retry 0.25 s.
const TIMING = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 250 };

let server: InMemoryApiServer;
const stops: AbortController[] = [];

beforeAll(async () => {
  server = await InMemoryApiServer.start();
});

afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await new Promise((r) => setTimeout(r, 50));
});

afterAll(async () => {
  await server.stop();
});

interface Candidate {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly run: Promise<void>;
  /** Wall-clock ms when each term started and ended. */
  readonly terms: { start: number; end?: number }[];
}

function candidate(identity: string, leaseName: string): Candidate {
  const elector = new LeaderElector({
    kubeConfig: server.kubeConfig(),
    namespace: 'default',
    leaseName,
    identity,
    logger: silentLogger(),
    ...TIMING,
  });
  const stop = new AbortController();
  stops.push(stop);
  const terms: Candidate['terms'] = [];
  const run = elector.run(stop.signal, async (term) => {
    const t: Candidate['terms'][number] = { start: Date.now() };
    terms.push(t);
    await new Promise<void>((resolve) => term.addEventListener('abort', () => resolve(), { once: true }));
    t.end = Date.now();
  });
  return { elector, stop, run, terms };
}

function spec(name: string): Record<string, unknown> {
  const lease = server.get({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }, 'default', name);
  return (lease?.['spec'] ?? {}) as Record<string, unknown>;
}

describe('two LeaderElectors over HTTP on one lease (in-memory API server)', () => {
  it('elects exactly one, and hands over at once when the leader stops gracefully', async () => {
    const a = candidate('replica-a', 'pair');
    const b = candidate('replica-b', 'pair');
    await waitFor(() => a.terms.length + b.terms.length === 1, { message: 'one leader', timeoutMs: 5_000 });
    const [leader, standby] = a.terms.length === 1 ? [a, b] : [b, a];
    expect(spec('pair')).toMatchObject({ holderIdentity: leader.elector.identity, leaseDurationSeconds: 2, leaseTransitions: 0 });
    // Renewals keep the standby out for longer than one lease duration.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(standby.terms).toHaveLength(0);
    expect(standby.elector.observedLeader()).toBe(leader.elector.identity);

    leader.stop.abort();
    await leader.run;
    const releasedAt = Date.now();
    expect(spec('pair')['holderIdentity']).toBeUndefined();
    await waitFor(() => standby.terms.length === 1, { message: 'the standby to lead', timeoutMs: 5_000 });
    // Taken over because the lease was released, not because it expired.
    expect(standby.terms[0]!.start - releasedAt).toBeLessThan(TIMING.leaseDurationMs);
    expect(spec('pair')).toMatchObject({ holderIdentity: standby.elector.identity, leaseTransitions: 1 });
    expect(leader.terms[0]!.end!).toBeLessThanOrEqual(standby.terms[0]!.start);
  });
});
