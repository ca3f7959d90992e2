import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource, InstanceWatcher, WatchRequest } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { AlreadyOwnedError } from './AlreadyOwnedError.js';
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

  it('reads the stored child and refuses one another controller owns, force or not, before writing anything', async () => {
    const owner = {
      ...(server.create(configmaps, { metadata: { name: 'mine', namespace: 'default' } }) as unknown as KubeObject),
      apiVersion: 'v1',
      kind: 'ConfigMap',
    };
    const theirs = server.create(configmaps, { metadata: { name: 'theirs', namespace: 'default' } });
    const taken = server.create(configmaps, {
      metadata: {
        name: 'taken',
        namespace: 'default',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'theirs', uid: theirs.metadata.uid as string, controller: true }],
      },
      data: { by: 'theirs' },
    });
    const watcher: InstanceWatcher = { watch: async () => undefined, done: () => undefined };
    for (const force of [false, true]) {
      const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken', namespace: 'default' }, data: { by: 'mine' } };
      const err = await applyOwned(client, watcher, configmaps, owner, child, { nodeId: 'taken', force }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AlreadyOwnedError);
      expect((err as Error).message).toBe(
        `ConfigMap default/taken is already controlled by ConfigMap theirs (uid ${theirs.metadata.uid}, v1); ` +
          `refusing to make ConfigMap mine (uid ${owner.metadata?.uid}) its controller`,
      );
    }
    expect(server.get(configmaps, 'default', 'taken')?.metadata.resourceVersion).toBe(taken.metadata.resourceVersion);
  });
});
