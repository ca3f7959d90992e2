import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { crdLateThenGoneAndBack } from './kindChanges.scenarios.js';

/* The kind-change scenario on kube-apiserver (its twin runs on the in-memory API server). */

let api: KubeApiServer;

beforeAll(async () => {
  api = await startKubeApiServer();
});
afterAll(async () => {
  await api?.stop();
});

describe('a child kind whose CRD comes after its instances, goes for 30 s, and comes back with another schema', () => {
  it('parks the instances, converges on each Established before any backoff could, never takes an instance for deleted', async () => {
    await crdLateThenGoneAndBack({ admin: api.kubeConfig }, 30_000);
  }, 180_000);
});
