import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreV1Api, makeInformer, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { isNotFound } from '@protean/core';
import { InMemoryApiServer } from './InMemoryApiServer.js';
import { waitFor } from '@protean/core/testing';

const CM = { group: '', version: 'v1', resource: 'configmaps' };

let server: InMemoryApiServer;

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});
afterEach(async () => {
  await server.stop();
});

describe('through @kubernetes/client-node', () => {
  it('creates, reads and lists namespaced ConfigMaps with CoreV1Api', async () => {
    const api = server.kubeConfig().makeApiClient(CoreV1Api);
    await api.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'from-client', labels: { app: 'x' } }, data: { a: '1' } },
    });
    const read = await api.readNamespacedConfigMap({ namespace: 'default', name: 'from-client' });
    expect(read.data).toEqual({ a: '1' });
    const list = await api.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=x' });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['from-client']);
    expect(list.metadata?.resourceVersion).toBe(server.currentResourceVersion());
    const err = await api.readNamespacedConfigMap({ namespace: 'default', name: 'missing' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isNotFound(err)).toBe(true);
    expect(server.requests().find((r) => r.method === 'POST')?.path).toBe('/api/v1/namespaces/default/configmaps');
  });

  it('streams events to client-node Watch', async () => {
    const seen: string[] = [];
    const controller = await new Watch(server.kubeConfig()).watch(
      '/api/v1/namespaces/default/configmaps',
      {},
      (type: string, obj: V1ConfigMap) => seen.push(`${type} ${obj.metadata?.name ?? ''}`),
      () => undefined,
    );
    server.create(CM, { metadata: { name: 'w', namespace: 'default' } });
    await waitFor(() => seen.length === 1, { message: 'the ADDED event' });
    controller.abort();
    expect(seen).toEqual(['ADDED w']);
  });

  it('keeps a client-node informer in sync across a clean watch close', async () => {
    const kc = server.kubeConfig();
    const api = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/default/configmaps', () =>
      api.listNamespacedConfigMap({ namespace: 'default' }),
    );
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name ?? ''}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name ?? ''}`));
    server.create(CM, { metadata: { name: 'a', namespace: 'default' } });
    await informer.start();
    server.create(CM, { metadata: { name: 'b', namespace: 'default' } });
    await waitFor(() => seen.length === 2, { message: 'two adds' });
    server.faults.closeWatches();
    server.patch(CM, 'default', 'b', { data: { x: '1' } });
    await waitFor(() => seen.length === 3, { message: 'the update after the watch was re-established' });
    await informer.stop();
    expect(seen).toEqual(['add a', 'add b', 'update b']);
  });
});
