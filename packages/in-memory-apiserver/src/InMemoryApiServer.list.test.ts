import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InMemoryApiServer } from './InMemoryApiServer.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const META_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const META_ONE = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

interface ListBody {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Array<{ kind?: string; apiVersion?: string; metadata: { name: string; namespace?: string }; data?: unknown }>;
}

let server: InMemoryApiServer;

beforeEach(async () => {
  server = await InMemoryApiServer.start({ historyWindow: 50 });
});
afterEach(async () => {
  await server.stop();
});

async function list(path: string, accept?: string): Promise<{ status: number; body: ListBody; contentType: string | null }> {
  const res = await fetch(`${server.url}${path}`, accept === undefined ? {} : { headers: { accept } });
  return { status: res.status, body: (await res.json()) as ListBody, contentType: res.headers.get('content-type') };
}

function names(body: ListBody): string[] {
  return body.items.map((i) => `${i.metadata.namespace ?? ''}/${i.metadata.name}`);
}

describe('LIST', () => {
  it('sorts items by namespace/name and reports the current resourceVersion', async () => {
    for (const [ns, n] of [
      ['b', 'x'],
      ['a', 'z'],
      ['a', 'y'],
    ] as const)
      server.create(CM, { metadata: { name: n, namespace: ns } });
    const all = await list('/api/v1/configmaps');
    expect(all.body.kind).toBe('ConfigMapList');
    expect(names(all.body)).toEqual(['a/y', 'a/z', 'b/x']);
    expect(all.body.metadata).toEqual({ resourceVersion: server.currentResourceVersion() });
    expect(names((await list('/api/v1/namespaces/a/configmaps')).body)).toEqual(['a/y', 'a/z']);
  });

  it('filters by labelSelector (full syntax) and fieldSelector on name and namespace', async () => {
    server.create(CM, { metadata: { name: 'one', namespace: 'n', labels: { app: 'web', tier: 'a' } } });
    server.create(CM, { metadata: { name: 'two', namespace: 'n', labels: { app: 'db' } } });
    server.create(CM, { metadata: { name: 'three', namespace: 'm', labels: { app: 'web' } } });
    const q = (s: string): string => encodeURIComponent(s);
    expect(names((await list(`/api/v1/configmaps?labelSelector=${q('app=web')}`)).body)).toEqual(['m/three', 'n/one']);
    expect(names((await list(`/api/v1/configmaps?labelSelector=${q('app in (web,db),!tier')}`)).body)).toEqual(['m/three', 'n/two']);
    expect(names((await list(`/api/v1/configmaps?fieldSelector=${q('metadata.name=two')}`)).body)).toEqual(['n/two']);
    expect(names((await list(`/api/v1/configmaps?fieldSelector=${q('metadata.namespace!=n')}`)).body)).toEqual(['m/three']);
    const bad = await list(`/api/v1/configmaps?fieldSelector=${q('spec.x=1')}`);
    expect(bad.status).toBe(400);
    expect((await list(`/api/v1/configmaps?labelSelector=${q('a in (')}`)).status).toBe(400);
  });

  it('paginates 1,200 objects in three pages of at most 500 with remainingItemCount', async () => {
    for (let i = 0; i < 1200; i++) server.create(CM, { metadata: { name: `cm-${String(i).padStart(4, '0')}`, namespace: 'p' } });
    const seen: string[] = [];
    const pages: ListBody['metadata'][] = [];
    let token: string | undefined;
    do {
      const r = await list(
        `/api/v1/namespaces/p/configmaps?limit=500${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`,
      );
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((i) => i.metadata.name));
      pages.push(r.body.metadata);
      token = r.body.metadata.continue;
    } while (token !== undefined);
    expect(pages.map((p) => p.remainingItemCount)).toEqual([700, 200, undefined]);
    expect(seen).toHaveLength(1200);
    expect(new Set(seen).size).toBe(1200);
    expect(seen).toEqual([...seen].sort());
  });

  it("serves continued pages from the first page's snapshot, as the real server does", async () => {
    for (const n of ['a', 'b', 'c', 'd']) server.create(CM, { metadata: { name: n, namespace: 's' }, data: { v: '0' } });
    const first = await list('/api/v1/namespaces/s/configmaps?limit=2');
    server.patch(CM, 's', 'c', { data: { v: '1' } });
    server.delete(CM, 's', 'd');
    server.create(CM, { metadata: { name: 'e', namespace: 's' } });
    const second = await list(`/api/v1/namespaces/s/configmaps?limit=2&continue=${encodeURIComponent(first.body.metadata.continue!)}`);
    expect(names(second.body)).toEqual(['s/c', 's/d']);
    expect(second.body.items[0]?.data).toEqual({ v: '0' });
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    expect(second.body.metadata.continue).toBeUndefined();
  });

  it('answers 410 Expired for a continue token older than the history window, with a token to go on inconsistently', async () => {
    for (const n of ['a', 'b', 'c']) server.create(CM, { metadata: { name: n, namespace: 'x' } });
    const first = await list('/api/v1/namespaces/x/configmaps?limit=1');
    server.create(CM, { metadata: { name: 'z', namespace: 'x' } });
    server.faults.expireAll();
    const res = await fetch(
      `${server.url}/api/v1/namespaces/x/configmaps?limit=1&continue=${encodeURIComponent(first.body.metadata.continue!)}`,
    );
    expect(res.status).toBe(410);
    const status = (await res.json()) as { reason: string; message: string; metadata: { continue?: string } };
    expect(status.reason).toBe('Expired');
    expect(status.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    const next = await list(`/api/v1/namespaces/x/configmaps?continue=${encodeURIComponent(status.metadata.continue!)}`);
    expect(names(next.body)).toEqual(['x/b', 'x/c', 'x/z']);
  });

  it('serves resourceVersionMatch=Exact from history and refuses resourceVersions it has not reached', async () => {
    server.create(CM, { metadata: { name: 'a', namespace: 'e' } });
    const rv = server.currentResourceVersion();
    server.create(CM, { metadata: { name: 'b', namespace: 'e' } });
    const exact = await list(`/api/v1/namespaces/e/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(names(exact.body)).toEqual(['e/a']);
    expect(exact.body.metadata.resourceVersion).toBe(rv);
    expect(names((await list(`/api/v1/namespaces/e/configmaps?resourceVersion=0`)).body)).toEqual(['e/a', 'e/b']);
    const future = await list('/api/v1/namespaces/e/configmaps?resourceVersion=999');
    expect(future.status).toBe(504);
  });
});

describe('metadata-only', () => {
  it('lists PartialObjectMetadataList with PartialObjectMetadata items and no spec/data', async () => {
    server.create(CM, { metadata: { name: 'm', namespace: 'q', labels: { a: 'b' } }, data: { big: 'x' } });
    const r = await list('/api/v1/namespaces/q/configmaps', META_LIST);
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^application\/json/);
    expect(r.body.kind).toBe('PartialObjectMetadataList');
    expect(r.body.apiVersion).toBe('meta.k8s.io/v1');
    expect(r.body.items).toEqual([
      { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'm', labels: { a: 'b' } }) },
    ]);
    expect(r.body.items[0]?.data).toBeUndefined();
  });

  it('gets one object as PartialObjectMetadata', async () => {
    server.create(CM, { metadata: { name: 'm', namespace: 'q' }, data: { big: 'x' } });
    const res = await fetch(`${server.url}/api/v1/namespaces/q/configmaps/m`, { headers: { accept: META_ONE } });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body['kind']).toBe('PartialObjectMetadata');
    expect(body['data']).toBeUndefined();
  });

  it('answers 406 when no Accept alternative can be served', async () => {
    const res = await fetch(`${server.url}/api/v1/configmaps`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    expect(res.status).toBe(406);
  });
});
