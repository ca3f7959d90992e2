import { afterEach, beforeEach, describe, it } from '@jest/globals';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { crdLateThenGoneAndBack } from './kindChanges.scenarios.js';

/* The kind-change scenario on the in-memory API server (its twin runs on kube-apiserver: kindChanges.real.test.ts). */

let server: InMemoryApiServer;

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});
afterEach(async () => {
  await server.stop();
});

describe('a child kind whose CRD comes after its instances, goes, and comes back (in-memory API server)', () => {
  it('parks the instances, converges within 2 s of each Established, never takes an instance for deleted', async () => {
    await crdLateThenGoneAndBack({ admin: server.kubeConfig() }, 3_000);
  }, 60_000);

  it('converges as fast when the informers were backing off for minutes: the CRD, not the backoff, wakes them', async () => {
    // The state a 5-minute outage leaves an informer in: its next attempt a minute or more away (the not-served cap
    // is 2 minutes). Here every backoff starts at 60 s, so only the CRD watch can make it converge in 2 s.
    await crdLateThenGoneAndBack({ admin: server.kubeConfig() }, 1_000, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
  }, 60_000);
});
