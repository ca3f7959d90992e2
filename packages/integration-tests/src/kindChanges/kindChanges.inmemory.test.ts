import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { crdLateThenGoneAndBack } from './kindChanges.scenarios.js';

/* The kind-change scenario on the in-memory API server (its twin runs on kube-apiserver: kindChanges.real.test.ts). */

let server: InMemoryApiServer;

beforeAll(async () => {
  server = await InMemoryApiServer.start();
});
afterAll(async () => {
  await server.stop();
});

describe('a child kind whose CRD comes after its instances, goes, and comes back (in-memory API server)', () => {
  it('parks the instances, converges within 2 s of each Established, never takes an instance for deleted', async () => {
    await crdLateThenGoneAndBack({ admin: server.kubeConfig() }, 3_000);
  }, 60_000);
});
