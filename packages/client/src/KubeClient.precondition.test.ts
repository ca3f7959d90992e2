import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StaleReadError, type GroupVersionResource, type PartialObjectMetadata } from '@protean/core';
import { unfencedWriteCount, bindPassReads, fenceSignal, noteRead } from '@protean/core/internal';
import { LogRecorder } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { applyOwned } from './applyOwned.js';
import { KubeApiError } from './KubeApiError.js';
import { KubeClient } from './KubeClient.js';
import type { KubeObject } from './KubeObject.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const key = (name: string): { namespace: string; name: string } => ({ namespace: 'default', name });

/** A pass's signal as the worker pool makes it: its reads recorded. */
function passSignal(): AbortSignal {
  const signal = new AbortController().signal;
  bindPassReads(signal);
  return signal;
}

describe('KubeClient: the precondition a pass read gives its writes (the server-enforced fence)', () => {
  let server: InMemoryApiServer;
  let client: KubeClient;
  let other: KubeClient;
  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    client = new KubeClient({ kubeConfig: server.kubeConfig(), fieldManager: 'stale-replica' });
    other = new KubeClient({ kubeConfig: server.kubeConfig(), fieldManager: 'new-owner' });
  });
  afterAll(async () => {
    client.close();
    other.close();
    await server.stop();
  });

  it('a merge patch, an update and an apply of an object read in the pass are refused with StaleReadError once another writer changed it', async () => {
    server.create(configmaps, { metadata: { name: 'fenced', namespace: 'default' }, data: { value: '1' } });
    const signal = passSignal();
    const read = await client.get(configmaps, key('fenced'), { signal });
    // The successor writes while this pass is between its read and its write.
    await other.patch(configmaps, key('fenced'), { data: { value: '2', writer: 'new-owner' } });

    const patch = await client.patch(configmaps, key('fenced'), { data: { value: 'stale' } }, { signal }).catch((e: unknown) => e);
    expect(patch).toBeInstanceOf(StaleReadError);
    expect(patch).toMatchObject({ readVersion: read.metadata.resourceVersion, objectName: 'fenced', namespace: 'default' });
    expect((patch as Error).message).toMatch(
      /^PATCH configmaps default\/fenced refused: the object changed after this pass read it at resourceVersion \d+/,
    );
    expect((patch as Error).cause).toBeInstanceOf(KubeApiError);
    expect(((patch as Error).cause as KubeApiError).status).toBe(409);

    const fresh = passSignal();
    noteRead(fresh, configmaps, read as PartialObjectMetadata);
    const update = await client
      .update(
        configmaps,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fenced', namespace: 'default' }, data: { value: 'stale' } },
        { signal: fresh },
      )
      .catch((e: unknown) => e);
    expect(update).toBeInstanceOf(StaleReadError);

    const again = passSignal();
    noteRead(again, configmaps, read as PartialObjectMetadata);
    const apply = await client
      .apply(
        configmaps,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fenced', namespace: 'default' }, data: { value: 'stale' } },
        { signal: again },
      )
      .catch((e: unknown) => e);
    expect(apply).toBeInstanceOf(StaleReadError);
    expect(server.get(configmaps, 'default', 'fenced')?.['data']).toEqual({ value: '2', writer: 'new-owner' });

    // Opted out, the same stale write goes through.
    const optedOut = passSignal();
    noteRead(optedOut, configmaps, read as PartialObjectMetadata);
    await client.patch(configmaps, key('fenced'), { data: { value: 'unfenced' } }, { signal: optedOut, precondition: false });
    expect((server.get(configmaps, 'default', 'fenced')?.['data'] as Record<string, string>)['value']).toBe('unfenced');
  });

  it('a pass that wrote the object writes it again fenced by its own write; a list read fences too; a body with its own version is sent as given', async () => {
    server.create(configmaps, { metadata: { name: 'twice', namespace: 'default' }, data: { n: '0' } });
    const signal = passSignal();
    const listed = await client.list(configmaps, { namespace: 'default', signal });
    expect(listed.some((o) => o.metadata.name === 'twice')).toBe(true);
    await client.patch(configmaps, key('twice'), { data: { n: '1' } }, { signal });
    await client.patch(configmaps, key('twice'), { data: { n: '2' } }, { signal });
    expect((server.get(configmaps, 'default', 'twice')?.['data'] as Record<string, string>)['n']).toBe('2');
    await other.patch(configmaps, key('twice'), { data: { n: 'other' } });
    await expect(client.patch(configmaps, key('twice'), { data: { n: '3' } }, { signal })).rejects.toBeInstanceOf(StaleReadError);
    // Its own resourceVersion: an ordinary optimistic-concurrency conflict, not the fence.
    const own = await client
      .patch(configmaps, key('twice'), { metadata: { resourceVersion: '1' }, data: { n: '4' } }, { signal: passSignal() })
      .catch((e: unknown) => e);
    expect(own).toBeInstanceOf(KubeApiError);
    expect(own).not.toBeInstanceOf(StaleReadError);
  });

  it('applyOwned is fenced by the child it read (from the server here, from the cache with cache: ctx)', async () => {
    const owner = server.create(configmaps, { metadata: { name: 'owner', namespace: 'default' } }) as unknown as KubeObject;
    const watcher = { watch: async () => undefined, done: () => undefined };
    const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', namespace: 'default' }, data: { v: '1' } };
    await applyOwned(client, watcher, configmaps, { ...owner, apiVersion: 'v1', kind: 'ConfigMap' }, child, { nodeId: 'c' });
    const signal = passSignal();
    // Reads the child (find), then another writer changes it before the apply leaves: refused.
    let raced = false;
    const racing = {
      get: async <T extends PartialObjectMetadata>(gvr: GroupVersionResource, namespace: string, name: string): Promise<T | undefined> => {
        const live = (await client.find(gvr, { namespace, name }, { signal })) as unknown as T;
        if (!raced) await other.patch(configmaps, key('owned'), { data: { v: 'other' } });
        raced = true;
        return live;
      },
    };
    const err = await applyOwned(
      client,
      watcher,
      configmaps,
      { ...owner, apiVersion: 'v1', kind: 'ConfigMap' },
      { ...child, data: { v: '2' } },
      {
        nodeId: 'c',
        cache: racing,
        signal,
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StaleReadError);
    expect((server.get(configmaps, 'default', 'owned')?.['data'] as Record<string, string>)['v']).toBe('other');
  });

  it('counts a write made without a fenced pass signal while the process acts under a lease, and tells once per call site', async () => {
    const log = new LogRecorder('warn');
    const quiet = new KubeClient({ kubeConfig: server.kubeConfig(), fieldManager: 'handler', logger: log.logger });
    server.create(configmaps, { metadata: { name: 'unfenced', namespace: 'default' } });
    const before = unfencedWriteCount();
    // Fenced by a lease (the worker pool does this for every pass of a leader term).
    const fenced = fenceSignal(new AbortController(), { isValid: () => true, description: 'leadership of lease ctl/webapp' });
    await quiet.patch(configmaps, key('unfenced'), { data: { a: '1' } }, { signal: fenced });
    expect(unfencedWriteCount()).toBe(before);
    const forgetful = (): Promise<unknown> => quiet.patch(configmaps, key('unfenced'), { data: { a: '2' } });
    await forgetful();
    await forgetful();
    await quiet.patch(configmaps, key('unfenced'), { data: { a: '3' } }, { signal: new AbortController().signal });
    expect(unfencedWriteCount()).toBe(before + 3);
    const lines = log.find("a write sent without a pass's ctx.signal");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ leases: 'leadership of lease ctl/webapp' });
    expect(String(lines[0]!['site'])).toMatch(/KubeClient\.precondition\.test\.ts/);
    quiet.close();
  });
});
