import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { isNotFound } from '@protean/core';
import { ApiError } from './ApiError.js';
import { InMemoryApiServer } from './InMemoryApiServer.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const WIDGETS = { group: 'example.com', version: 'v1', resource: 'widgets' };

let server: InMemoryApiServer;

beforeEach(async () => {
  server = await InMemoryApiServer.start();
  server.registerResource({ ...WIDGETS, kind: 'Widget', namespaced: true, hasStatusSubresource: true });
});
afterEach(async () => {
  await server.stop();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const init: RequestInit = { method, headers: { 'content-type': contentType } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${server.url}${path}`, init);
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const widgetPath = '/apis/example.com/v1/namespaces/ns1/widgets';

describe('discovery', () => {
  it('lists core versions, groups and resources with status subresources', async () => {
    const api = await call('GET', '/api');
    expect(api.json).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const apis = await call('GET', '/apis');
    expect(apis.json['kind']).toBe('APIGroupList');
    expect(apis.json['groups']).toEqual(
      expect.arrayContaining([
        {
          name: 'example.com',
          versions: [{ groupVersion: 'example.com/v1', version: 'v1' }],
          preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
        },
      ]),
    );
    const core = await call('GET', '/api/v1');
    expect(core.json['apiVersion']).toBeUndefined();
    expect(core.json['resources']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap' }),
      ]),
    );
    const group = await call('GET', '/apis/example.com/v1');
    expect(group.json).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'example.com/v1' });
    expect(group.json['resources']).toEqual([
      expect.objectContaining({
        name: 'widgets',
        singularName: 'widget',
        namespaced: true,
        kind: 'Widget',
        verbs: expect.arrayContaining(['watch', 'list']),
      }),
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('answers /version, /healthz and /readyz with 200', async () => {
    for (const p of ['/version', '/healthz', '/readyz']) {
      expect((await fetch(`${server.url}${p}`)).status).toBe(200);
    }
  });

  it('answers 404 Status for an unknown resource in a built-in group, plain text in custom or unknown groups', async () => {
    for (const p of ['/api/v1/namespaces/a/foos', '/apis/apiextensions.k8s.io/v2']) {
      const r = await call('GET', p);
      expect(r.status).toBe(404);
      expect(r.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        details: {},
        code: 404,
      });
    }
    for (const p of ['/apis/example.com/v1/nopes', '/apis/nope.io/v1/bars', '/apis/nope.io', '/nonsense']) {
      const r = await fetch(`${server.url}${p}`);
      expect([p, r.status, r.headers.get('content-type'), await r.text()]).toEqual([
        p,
        404,
        'text/plain; charset=utf-8',
        '404 page not found\n',
      ]);
    }
  });
});

describe('CRUD', () => {
  it('creates with uid, timestamp, resourceVersion, generation 1 and managedFields; 409 on a duplicate', async () => {
    const created = await call('POST', widgetPath, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { size: 1 },
    });
    expect(created.status).toBe(201);
    const meta = created.json['metadata'] as Record<string, unknown>;
    expect(meta).toMatchObject({ name: 'w1', namespace: 'ns1', generation: 1, resourceVersion: server.currentResourceVersion() });
    expect(meta['uid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta['creationTimestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(meta['managedFields']).toEqual([expect.objectContaining({ manager: 'node', operation: 'Update', fieldsType: 'FieldsV1' })]);
    const dup = await call('POST', widgetPath, { metadata: { name: 'w1' } });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({
      reason: 'AlreadyExists',
      message: 'widgets.example.com "w1" already exists',
      details: { name: 'w1', group: 'example.com', kind: 'widgets' },
      code: 409,
    });
  });

  it('rejects a missing name with 422 and a namespace mismatch with 400', async () => {
    const noName = await call('POST', widgetPath, { metadata: {} });
    expect(noName.status).toBe(422);
    expect(noName.json).toMatchObject({
      reason: 'Invalid',
      message: 'Widget.example.com "" is invalid: metadata.name: Required value: name or generateName is required',
    });
    const mismatch = await call('POST', widgetPath, { metadata: { name: 'x', namespace: 'other' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json).toMatchObject({
      reason: 'BadRequest',
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    });
  });

  it('gets an object and answers the real 404 Status for a missing one', async () => {
    server.create(CM, { metadata: { name: 'x1', namespace: 'default' }, data: { a: 'b' } });
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/x1')).json).toMatchObject({ kind: 'ConfigMap', data: { a: 'b' } });
    const missing = await call('GET', '/api/v1/namespaces/default/configmaps/x');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "x" not found',
      reason: 'NotFound',
      details: { name: 'x', kind: 'configmaps' },
      code: 404,
    });
  });

  it('updates with a current resourceVersion, 409 with a stale one, 404 when missing, 422 without one for custom resources', async () => {
    const w = server.create(WIDGETS, { metadata: { name: 'w', namespace: 'ns1' }, spec: { size: 1 } });
    const ok = await call('PUT', `${widgetPath}/w`, { ...w, spec: { size: 2 } });
    expect(ok.status).toBe(200);
    expect(ok.json['metadata']).toMatchObject({ generation: 2 });
    expect(Number((ok.json['metadata'] as Record<string, string>)['resourceVersion'])).toBeGreaterThan(Number(w.metadata.resourceVersion));
    const stale = await call('PUT', `${widgetPath}/w`, { ...w, spec: { size: 3 } });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on widgets.example.com "w": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect((await call('PUT', `${widgetPath}/nope`, { metadata: { name: 'nope', resourceVersion: '1' } })).status).toBe(404);
    const noRv = await call('PUT', `${widgetPath}/w`, { metadata: { name: 'w' }, spec: {} });
    expect(noRv.status).toBe(422);
  });

  it('does not bump generation or resourceVersion for a metadata-only change or a no-op update', () => {
    const w = server.create(WIDGETS, { metadata: { name: 'w', namespace: 'ns1' }, spec: { size: 1 } });
    const labelled = server.update(WIDGETS, { ...w, metadata: { ...w.metadata, labels: { a: 'b' } } });
    expect(labelled.metadata.generation).toBe(1);
    const again = server.update(WIDGETS, labelled);
    expect(again.metadata.resourceVersion).toBe(labelled.metadata.resourceVersion);
  });

  it('keeps status out of the main endpoint and spec out of /status when the status subresource is on', async () => {
    const w = server.create(WIDGETS, { metadata: { name: 'w', namespace: 'ns1' }, spec: { size: 1 }, status: { ready: true } });
    expect(w['status']).toBeUndefined();
    const st = await call('PUT', `${widgetPath}/w/status`, { ...w, spec: { size: 9 }, status: { ready: true } });
    expect(st.status).toBe(200);
    expect(st.json).toMatchObject({ spec: { size: 1 }, status: { ready: true }, metadata: { generation: 1 } });
    const mf = (st.json['metadata'] as { managedFields: Array<{ subresource?: string }> }).managedFields;
    expect(mf.some((e) => e.subresource === 'status')).toBe(true);
    const main = server.update(WIDGETS, { ...(st.json as never as typeof w), spec: { size: 2 }, status: { ready: false } });
    expect(main['status']).toEqual({ ready: true });
    expect(main.metadata.generation).toBe(2);
    const patched = await call('PATCH', `${widgetPath}/w/status`, { status: { ready: false } }, 'application/merge-patch+json');
    expect(patched.json).toMatchObject({ status: { ready: false }, metadata: { generation: 2 } });
    expect((await call('GET', `${widgetPath}/w/status`)).json).toMatchObject({ status: { ready: false } });
  });

  it('bumps generation on any non-metadata change when there is no status subresource, and never for ConfigMaps', () => {
    server.registerResource({ group: 'example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: false });
    const G = { group: 'example.com', version: 'v1', resource: 'gadgets' };
    const g = server.create(G, { metadata: { name: 'g' }, status: { x: 1 } });
    expect(server.update(G, { ...g, status: { x: 2 } }).metadata.generation).toBe(2);
    const cm = server.create(CM, { metadata: { name: 'c', namespace: 'd' }, data: { a: '1' } });
    expect(cm.metadata.generation).toBeUndefined();
    expect(server.update(CM, { ...cm, data: { a: '2' } }).metadata.generation).toBeUndefined();
  });

  it('applies merge patches (RFC 7386) and JSON patches, with resourceVersion as a precondition', async () => {
    server.create(CM, { metadata: { name: 'p', namespace: 'd', labels: { a: '1', b: '2' } }, data: { k: 'v', gone: 'x' } });
    const merged = await call(
      'PATCH',
      '/api/v1/namespaces/d/configmaps/p',
      { metadata: { labels: { b: null, c: '3' } }, data: { gone: null, k: 'w' } },
      'application/merge-patch+json',
    );
    expect(merged.status).toBe(200);
    expect(merged.json).toMatchObject({ metadata: { labels: { a: '1', c: '3' } }, data: { k: 'w' } });
    expect((merged.json['data'] as Record<string, string>)['gone']).toBeUndefined();
    const strategic = await call(
      'PATCH',
      '/api/v1/namespaces/d/configmaps/p',
      { data: { s: '1' } },
      'application/strategic-merge-patch+json',
    );
    expect(strategic.json).toMatchObject({ data: { k: 'w', s: '1' } });
    const jp = await call(
      'PATCH',
      '/api/v1/namespaces/d/configmaps/p',
      [{ op: 'replace', path: '/data/k', value: 'j' }],
      'application/json-patch+json',
    );
    expect(jp.json).toMatchObject({ data: { k: 'j' } });
    const stale = await call(
      'PATCH',
      '/api/v1/namespaces/d/configmaps/p',
      { metadata: { resourceVersion: '1' } },
      'application/merge-patch+json',
    );
    expect(stale.status).toBe(409);
    expect((await call('PATCH', '/api/v1/namespaces/d/configmaps/p', {}, 'application/yaml')).status).toBe(415);
    // Server-side apply without a fieldManager is invalid, as on the real server.
    expect((await call('PATCH', '/api/v1/namespaces/d/configmaps/p', {}, 'application/apply-patch+yaml')).status).toBe(422);
    expect((await call('PATCH', '/api/v1/namespaces/d/configmaps/none', {}, 'application/merge-patch+json')).status).toBe(404);
  });

  it('answers DELETE with a Success Status naming the object for custom resources and ConfigMaps', async () => {
    const w = server.create(WIDGETS, { metadata: { name: 'w', namespace: 'ns1' } });
    const del = await call('DELETE', `${widgetPath}/w`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'w', group: 'example.com', kind: 'widgets', uid: w.metadata.uid },
    });
    const cm = server.create(CM, { metadata: { name: 'c', namespace: 'd' } });
    const delCm = await call('DELETE', '/api/v1/namespaces/d/configmaps/c');
    expect(delCm.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'c', kind: 'configmaps', uid: cm.metadata.uid },
    });
    expect((await call('DELETE', '/api/v1/namespaces/d/configmaps/c')).status).toBe(404);
  });

  it('keeps an object with finalizers until the last finalizer is removed', () => {
    const w = server.create(WIDGETS, { metadata: { name: 'f', namespace: 'ns1', finalizers: ['example.com/x'] } });
    const deleting = server.delete(WIDGETS, 'ns1', 'f');
    expect(deleting?.metadata.deletionTimestamp).toBeDefined();
    expect(deleting?.metadata.generation).toBe(2);
    expect(server.get(WIDGETS, 'ns1', 'f')).toBeDefined();
    expect(() =>
      server.update(WIDGETS, { ...deleting!, metadata: { ...deleting!.metadata, finalizers: ['example.com/x', 'new'] } }),
    ).toThrow(ApiError);
    server.update(WIDGETS, { ...deleting!, metadata: { ...deleting!.metadata, finalizers: [] } });
    expect(server.get(WIDGETS, 'ns1', 'f')).toBeUndefined();
    expect(w.metadata.uid).toBeDefined();
  });

  it('answers 405 for a method a path does not support', async () => {
    expect((await call('POST', '/api/v1/namespaces/d/configmaps/x', {})).status).toBe(405);
    expect((await call('PUT', '/api/v1/namespaces/d/configmaps', {})).status).toBe(405);
  });

  it('throws ApiError from the direct methods, recognised by isNotFound', () => {
    expect(() => server.update(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope', namespace: 'd' } })).toThrow(ApiError);
    let err: unknown;
    try {
      server.patch(CM, 'd', 'nope', {});
    } catch (e) {
      err = e;
    }
    expect(isNotFound(err)).toBe(true);
    expect(server.get(CM, 'd', 'nope')).toBeUndefined();
    expect(server.delete(CM, 'd', 'nope')).toBeUndefined();
  });

  it('gives Namespaces their metadata.name label and Active phase, and deletes their contents with them', () => {
    const ns = server.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: 'team' } });
    expect(ns).toMatchObject({ metadata: { labels: { 'kubernetes.io/metadata.name': 'team' } }, status: { phase: 'Active' } });
    server.create(CM, { metadata: { name: 'c', namespace: 'team' } });
    server.delete({ group: '', version: 'v1', resource: 'namespaces' }, '', 'team');
    expect(server.list(CM, 'team')).toEqual([]);
  });

  it('generates names from generateName and refuses a resourceVersion on create with a 500, as the real storage does', async () => {
    const gen = await call('POST', '/api/v1/namespaces/d/configmaps', { metadata: { generateName: 'gen-' } });
    expect(gen.status).toBe(201);
    expect((gen.json['metadata'] as { name: string }).name).toMatch(/^gen-[a-z0-9]{5}$/);
    const withRv = await call('POST', '/api/v1/namespaces/d/configmaps', { metadata: { name: 'r', resourceVersion: '5' } });
    expect(withRv.status).toBe(500);
    expect(withRv.json).toMatchObject({ message: 'resourceVersion should not be set on objects to be created', code: 500 });
  });

  it('deletes a collection by label selector and returns the deleted items as a list', async () => {
    for (const [n, app] of [
      ['a', 'x'],
      ['b', 'y'],
      ['c', 'x'],
    ] as const)
      server.create(CM, { metadata: { name: n, namespace: 'dc', labels: { app } } });
    const res = await call('DELETE', '/api/v1/namespaces/dc/configmaps?labelSelector=app%3Dx');
    expect(res.status).toBe(200);
    expect(res.json['kind']).toBe('ConfigMapList');
    expect((res.json['items'] as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['a', 'c']);
    expect(server.list(CM, 'dc').map((o) => o.metadata.name)).toEqual(['b']);
  });
});

describe('requireNamespaces', () => {
  it('answers 404 for a create in a namespace that does not exist', async () => {
    const strict = await InMemoryApiServer.start({ requireNamespaces: true });
    try {
      const res = await fetch(`${strict.url}/api/v1/namespaces/ghost/configmaps`, {
        method: 'POST',
        body: JSON.stringify({ metadata: { name: 'c' } }),
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ message: 'namespaces "ghost" not found' });
      strict.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: 'ghost' } });
      expect(strict.create(CM, { metadata: { name: 'c', namespace: 'ghost' } }).metadata.namespace).toBe('ghost');
    } finally {
      await strict.stop();
    }
  });
});
