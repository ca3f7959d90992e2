import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { kubeRequest } from '@protean/envtest';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { E2eCluster } from './E2eCluster.js';
import { malformedGvrTests, type MalformedGvrTarget } from './malformedGvrTests.js';
import { startRealController, type RealController } from './startRealController.js';

const NAMESPACE = 'malformed-gvr';

let api: KubeApiServer;
let rc: RealController;
let target: MalformedGvrTarget;

beforeAll(async () => {
  api = await startKubeApiServer();
  const cluster = new E2eCluster(api.kubeConfig, NAMESPACE);
  await cluster.createNamespace();
  rc = startRealController({ kubeConfig: api.kubeConfig });
  target = {
    rc,
    namespace: NAMESPACE,
    async createConfigMap(name) {
      await cluster.createConfigMap(name, {});
    },
  };
});

afterAll(async () => {
  await rc?.stop();
  await api?.stop();
});

malformedGvrTests('real kube-apiserver', () => target);

describe('why the rules matter on a real kube-apiserver', () => {
  it('serves the ConfigMaps of a namespace at /api/v1/namespaces%2F<ns>%2Fconfigmaps: an encoded slash separates path segments', async () => {
    const res = await kubeRequest(api.kubeConfig, 'GET', `/api/v1/namespaces%2F${NAMESPACE}%2Fconfigmaps`);
    expect(res.status).toBe(200);
    expect(res.json['kind']).toBe('ConfigMapList');
    const items = res.json['items'] as Array<{ metadata: { name: string; namespace: string } }>;
    expect(items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toContain(`${NAMESPACE}/malformed-gvr-trigger`);
  });
});
