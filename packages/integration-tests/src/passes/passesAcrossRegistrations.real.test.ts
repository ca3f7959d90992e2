import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { cutOffAcrossRegistrations } from './cutOffAcrossRegistrations.js';

let api: KubeApiServer;

beforeAll(async () => {
  api = await startKubeApiServer();
});

afterAll(async () => {
  await api?.stop();
});

describe('passes cut off by deregister, on a real kube-apiserver', () => {
  it('cuts off 25 passes by deregistering; a fresh registration still retries its first failure', async () => {
    await cutOffAcrossRegistrations(api.kubeConfig, 'default', 'cut-off');
  });
});
