import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InvalidGroupVersionResourceError, InvalidObjectNameError, type GroupVersionResource } from '@protean/core';
import { kindUnavailableOf, UNSERVED_RESOURCE_HINT } from '@protean/core/internal';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { KubeApiError } from './KubeApiError.js';
import { KubeClient } from './KubeClient.js';
import { MissingNamespaceError } from './MissingNamespaceError.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const namespaces: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };

describe('KubeClient errors that name the fix', () => {
  let server: InMemoryApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    client = new KubeClient({ kubeConfig: server.kubeConfig(), fieldManager: 'test-controller' });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  const writes = (): Array<{ method: string; path: string }> =>
    server.requests().filter((r) => r.method !== 'GET' || !/^\/apis?(\/[^/]+)?\/v1$/.test(r.path));

  it('refuses a namespaced write or read without a namespace before sending it, naming the resource, the object and the fix', async () => {
    const before = writes().length;
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } };
    await expect(client.create(configmaps, cm)).rejects.toThrow(new MissingNamespaceError('create', configmaps, 'a', true));
    await expect(client.create(configmaps, cm)).rejects.toThrow(
      'create of configmaps "a" names no namespace, but configmaps is a namespaced resource: set metadata.namespace on the object',
    );
    await expect(client.apply(configmaps, cm)).rejects.toThrow('apply of configmaps "a" names no namespace');
    await expect(client.update(configmaps, cm)).rejects.toThrow('update of configmaps "a" names no namespace');
    await expect(client.patch(configmaps, { name: 'a' }, { data: {} })).rejects.toThrow(
      'patch of configmaps "a" names no namespace, but configmaps is a namespaced resource: pass namespace in the key ({ namespace, name })',
    );
    await expect(client.get(configmaps, { name: 'a' })).rejects.toBeInstanceOf(MissingNamespaceError);
    await expect(client.delete(configmaps, { name: 'a' })).rejects.toBeInstanceOf(MissingNamespaceError);
    // Only discovery was asked; no write and no object read went out.
    expect(writes().slice(before)).toEqual([]);
  });

  it('writes a cluster-scoped object without a namespace, asking discovery once per group/version', async () => {
    const discoveries = (): number => server.requests().filter((r) => r.path === '/api/v1').length;
    const before = discoveries();
    await client.create(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cluster-a' } });
    await client.create(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cluster-b' } });
    expect((await client.get(namespaces, { name: 'cluster-b' })).metadata.name).toBe('cluster-b');
    expect(discoveries() - before).toBeLessThanOrEqual(1);
  });

  it('says the core group is "" when a GVR names it "core"', async () => {
    const err = await client
      .get({ group: 'core', version: 'v1', resource: 'configmaps' }, { namespace: 'default', name: 'a' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGroupVersionResourceError);
    expect((err as Error).message).toContain('group "core" is not an API group: the core group');
    expect((err as Error).message).toContain('is "" in a GroupVersionResource');
  });

  it('gives a 404 for a resource that is not served the plural-name hint register() gives, and a missing object none', async () => {
    const unserved = await client
      .get({ group: '', version: 'v1', resource: 'configmap' }, { namespace: 'default', name: 'a' })
      .catch((e: unknown) => e);
    expect(unserved).toBeInstanceOf(KubeApiError);
    expect((unserved as Error).message).toBe(`GET configmap default/a: 404 page not found (${UNSERVED_RESOURCE_HINT})`);
    // A kind not served, for the controller: the pass waits for it instead of taking its instance for deleted.
    expect(kindUnavailableOf(unserved)).toMatchObject({ name: 'KindNotServedError', gvr: { resource: 'configmap' }, namespace: 'default' });
    const missing = await client.get(configmaps, { namespace: 'default', name: 'nope' }).catch((e: unknown) => e);
    expect((missing as Error).message).toBe('GET configmaps default/nope: 404 NotFound: configmaps "nope" not found');
    expect(kindUnavailableOf(missing)).toBeUndefined();
  });

  it('checks the name in a create body before sending it, naming the bad name', async () => {
    const before = writes().length;
    const err = await client
      .create(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a/../b', namespace: 'default' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidObjectNameError);
    expect((err as Error).message).toContain('invalid name "a/../b"');
    expect(writes().slice(before)).toEqual([]);
  });
});
