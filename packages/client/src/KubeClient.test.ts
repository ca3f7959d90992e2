import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isNotFound, summarizeError, type GroupVersionResource } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { isAlreadyExists, isConflict } from './errorPredicates.js';
import { KubeApiError } from './KubeApiError.js';
import { KubeClient } from './KubeClient.js';
import type { KubeObject } from './KubeObject.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const widgets: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'widgets' };

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { ready?: boolean; phase?: string };
}

describe('KubeClient against the in-memory API server', () => {
  let server: InMemoryApiServer;
  let client: KubeClient;
  let namespaces = 0;
  const ns = (): string => `ns-${++namespaces}`;

  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    server.registerResource({ ...widgets, kind: 'Widget', namespaced: true, hasStatusSubresource: true });
    client = new KubeClient({ kubeConfig: server.kubeConfig(), fieldManager: 'test-controller', retry: { minDelayMs: 1, maxDelayMs: 5 } });
  });

  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('creates, reads, replaces and deletes a ConfigMap, recording its fieldManager', async () => {
    const namespace = ns();
    const created = await client.create<ConfigMap>(configmaps, { metadata: { name: 'a', namespace }, data: { k: 'v' } });
    expect(created).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'a', namespace }, data: { k: 'v' } });
    expect(created.metadata?.managedFields?.map((m) => m.manager)).toEqual(['test-controller']);
    const read = await client.get<ConfigMap>(configmaps, { namespace, name: 'a' });
    expect(read).toEqual(created);
    const replaced = await client.update<ConfigMap>(configmaps, { ...read, data: { k: 'w' } });
    expect(replaced.data).toEqual({ k: 'w' });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));
    expect(await client.delete(configmaps, { namespace, name: 'a' })).toBeUndefined();
    expect(await client.find(configmaps, { namespace, name: 'a' })).toBeUndefined();
  });

  it('rejects a missing object with a KubeApiError that core reads as NotFound', async () => {
    const namespace = ns();
    const err = await client.get(configmaps, { namespace, name: 'nope' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ status: 404, reason: 'NotFound', serverMessage: 'configmaps "nope" not found' });
    expect((err as Error).message).toBe(`GET configmaps ${namespace}/nope: 404 NotFound: configmaps "nope" not found`);
    expect(isNotFound(err)).toBe(true);
    expect(summarizeError(err)).toBe('404 NotFound: configmaps "nope" not found');
  });

  it('reports AlreadyExists and a stale resourceVersion as distinct 409s', async () => {
    const namespace = ns();
    const first = await client.create<ConfigMap>(configmaps, { metadata: { name: 'c', namespace }, data: { n: '1' } });
    const again = await client.create(configmaps, { metadata: { name: 'c', namespace } }).catch((e: unknown) => e);
    expect(isAlreadyExists(again)).toBe(true);
    expect(isConflict(again)).toBe(false);
    await client.update(configmaps, { ...first, data: { n: '2' } });
    const stale = await client.update(configmaps, { ...first, data: { n: '3' } }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ status: 409, reason: 'Conflict' });
    expect(isConflict(stale)).toBe(true);
  });

  it('merge-patches and JSON-patches an object', async () => {
    const namespace = ns();
    await client.create<ConfigMap>(configmaps, { metadata: { name: 'p', namespace }, data: { a: '1', b: '2' } });
    const merged = await client.patch<ConfigMap>(configmaps, { namespace, name: 'p' }, { data: { a: null, c: '3' } });
    expect(merged.data).toEqual({ b: '2', c: '3' });
    const json = await client.patch<ConfigMap>(configmaps, { namespace, name: 'p' }, [{ op: 'replace', path: '/data/b', value: 'x' }], {
      type: 'json',
    });
    expect(json.data).toEqual({ b: 'x', c: '3' });
  });

  it('patches only the status subresource with patchStatus, leaving spec and generation alone', async () => {
    const namespace = ns();
    const w = await client.create<Widget>(widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace },
      spec: { size: 1 },
    });
    const patched = await client.patchStatus<Widget>(widgets, { namespace, name: 'w' }, { ready: true });
    expect(patched).toMatchObject({ spec: { size: 1 }, status: { ready: true }, metadata: { generation: w.metadata?.generation } });
    const mf = patched.metadata?.managedFields ?? [];
    expect(mf).toEqual(expect.arrayContaining([expect.objectContaining({ manager: 'test-controller', subresource: 'status' })]));
  });

  it('lists every page of a collection, optionally by label selector', async () => {
    const namespace = ns();
    for (let i = 0; i < 7; i++) {
      await client.create(configmaps, { metadata: { name: `m${i}`, namespace, labels: { odd: String(i % 2 === 1) } } });
    }
    const all = await client.list(configmaps, { namespace, pageSize: 3 });
    expect(all.map((o) => o.metadata?.name)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    const odd = await client.list(configmaps, { namespace, labelSelector: 'odd=true', pageSize: 2 });
    expect(odd.map((o) => o.metadata?.name)).toEqual(['m1', 'm3', 'm5']);
  });

  it('returns an object kept by finalizers from delete, with its deletionTimestamp', async () => {
    const namespace = ns();
    await client.create(configmaps, { metadata: { name: 'f', namespace, finalizers: ['example.com/hold'] } });
    const kept = await client.delete(configmaps, { namespace, name: 'f' });
    expect(kept?.metadata?.deletionTimestamp).toEqual(expect.any(String));
    expect(await client.delete(configmaps, { namespace, name: 'never-was' })).toBeUndefined();
  });

  it('re-reads and re-applies a change in modify when another writer got there first', async () => {
    const namespace = ns();
    await client.create<ConfigMap>(configmaps, { metadata: { name: 'm', namespace }, data: { count: '0', other: 'a' } });
    let calls = 0;
    const stored = await client.modify<ConfigMap>(configmaps, { namespace, name: 'm' }, (cm) => {
      calls++;
      // A concurrent writer changes the object between our read and our write, once.
      if (calls === 1) server.patch(configmaps, namespace, 'm', { data: { other: 'b' } });
      cm.data = { ...cm.data, count: String(Number(cm.data?.['count']) + 1) };
    });
    expect(calls).toBe(2);
    expect(stored.data).toEqual({ count: '1', other: 'b' });
  });

  it('writes nothing in modify when the mutation returns false', async () => {
    const namespace = ns();
    const created = await client.create<ConfigMap>(configmaps, { metadata: { name: 'same', namespace }, data: { a: '1' } });
    const stored = await client.modify<ConfigMap>(configmaps, { namespace, name: 'same' }, () => false);
    expect(stored.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('aborts a request the server never answers with the signal’s reason', async () => {
    const namespace = ns();
    const abort = new AbortController();
    server.faults.stall(true);
    try {
      const pending = client.get(configmaps, { namespace, name: 'x' }, { signal: abort.signal });
      const reason = new Error('reconcile timed out');
      abort.abort(reason);
      await expect(pending).rejects.toBe(reason);
    } finally {
      server.faults.stall(false);
    }
  });

  it('refuses an already aborted signal without sending anything', async () => {
    const before = server.requests().length;
    const abort = new AbortController();
    const reason = new Error('shutting down');
    abort.abort(reason);
    await expect(client.get(configmaps, { namespace: 'default', name: 'x' }, { signal: abort.signal })).rejects.toBe(reason);
    expect(server.requests().length).toBe(before);
  });

  it('refuses names that would address another path before sending anything', async () => {
    await expect(client.get(configmaps, { namespace: 'default', name: '../secrets/x' })).rejects.toMatchObject({
      name: 'InvalidObjectNameError',
    });
    await expect(client.get(configmaps, { namespace: 'Not_A_Namespace', name: 'x' })).rejects.toMatchObject({
      name: 'InvalidObjectNameError',
    });
  });
});
