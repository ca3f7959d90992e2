import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource, InstanceWatcher, WatchRequest } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { applyOwned } from './applyOwned.js';
import { KubeClient } from './KubeClient.js';
import type { KubeObject } from './KubeObject.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

describe('applyOwned', () => {
  let server: InMemoryApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    client = new KubeClient({ kubeConfig: server.kubeConfig(), fieldManager: 'owner-controller' });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('declares the watch before it writes, then applies the child with a controller reference', async () => {
    const owner = server.create(configmaps, { metadata: { name: 'owner', namespace: 'default' } }) as unknown as KubeObject;
    const steps: string[] = [];
    const watcher: InstanceWatcher = {
      watch: async (req: WatchRequest) => {
        steps.push(
          `watch ${req.nodeId} ${req.gvr.resource} ${req.namespace}/${req.name} (exists: ${server.get(configmaps, 'default', 'child') !== undefined})`,
        );
      },
      done: () => undefined,
    };
    const child = await applyOwned(
      client,
      watcher,
      configmaps,
      { ...owner, apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'child', namespace: 'default' }, data: { a: '1' } },
      { nodeId: 'child-cm' },
    );
    expect(steps).toEqual(['watch child-cm configmaps default/child (exists: false)']);
    expect(child.metadata?.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(child.metadata?.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['owner-controller', 'Apply']]);
  });
});
