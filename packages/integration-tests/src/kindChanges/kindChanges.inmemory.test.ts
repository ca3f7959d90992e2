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
  it('parks the instances, converges on each Established before any backoff could, never takes an instance for deleted', async () => {
    // Every backoff starts at a minute: the state a 5-minute outage leaves an informer in (the not-served cap is 2
    // minutes). Only the CRD watch can make it converge sooner.
    await crdLateThenGoneAndBack({ admin: server.kubeConfig() }, 3_000);
  }, 90_000);
});
