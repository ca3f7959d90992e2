import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ApiError } from './ApiError.js';
import { CRD_GVR } from './crd.js';
import { InMemoryApiServer } from './InMemoryApiServer.js';
import type { NewKubeObject } from './types.js';
import { TestWatch } from './TestWatch.testkit.js';

let server: InMemoryApiServer;

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});
afterEach(async () => {
  await server.stop();
});

function crd(scope: 'Namespaced' | 'Cluster', withStatus: boolean): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      scope,
      versions: [
        { name: 'v1alpha1', served: true, storage: false },
        { name: 'v1', served: true, storage: true, ...(withStatus ? { subresources: { status: {} } } : {}) },
      ],
    },
  };
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const init: RequestInit = { method, headers: { 'content-type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${server.url}${path}`, init);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('CustomResourceDefinitions', () => {
  it('serves the storage version once the CRD is created over HTTP, and 404s after it is deleted', async () => {
    const created = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('Namespaced', true));
    expect(created.status).toBe(201);
    expect((created.json['status'] as { conditions: unknown[] }).conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Established', status: 'True' }),
        expect.objectContaining({ type: 'NamesAccepted', status: 'True' }),
      ]),
    );
    const discovery = await call('GET', '/apis/example.com/v1');
    expect(discovery.json['resources']).toEqual([
      expect.objectContaining({ name: 'gizmos', kind: 'Gizmo', namespaced: true }),
      expect.objectContaining({ name: 'gizmos/status' }),
    ]);
    const g = await call('POST', '/apis/example.com/v1/namespaces/n/gizmos', {
      apiVersion: 'example.com/v1',
      kind: 'Gizmo',
      metadata: { name: 'g1' },
    });
    expect(g.status).toBe(201);
    const w = new TestWatch(`${server.url}/apis/example.com/v1/gizmos?watch=true`);
    await w.ready;
    await w.waitForEvents(1);
    const deleted = await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com');
    expect(deleted.status).toBe(200);
    expect(await w.waitForOutcome()).toBe('end');
    // A group no longer served answers like the real server: plain-text 404.
    for (const p of ['/apis/example.com/v1/namespaces/n/gizmos', '/apis/example.com/v1']) {
      const r = await fetch(`${server.url}${p}`);
      expect([r.status, await r.text()]).toEqual([404, '404 page not found\n']);
    }
  });

  it('registers a cluster-scoped resource from create() and honours the status subresource setting', () => {
    server.create(CRD_GVR, crd('Cluster', false) as NewKubeObject);
    const G = { group: 'example.com', version: 'v1', resource: 'gizmos' };
    const g = server.create(G, { metadata: { name: 'c' }, status: { kept: true } });
    expect(g.metadata.namespace).toBeUndefined();
    expect(g['status']).toEqual({ kept: true });
    expect(server.list(G).map((o) => o.metadata.name)).toEqual(['c']);
  });

  it('rejects an invalid CRD with 422 naming the field', () => {
    const bad = crd('Namespaced', false);
    (bad['metadata'] as Record<string, string>)['name'] = 'wrong.example.com';
    let err: unknown;
    try {
      server.create(CRD_GVR, bad as NewKubeObject);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(422);
    expect((err as ApiError).message).toContain('metadata.name');
  });
});

describe('fieldValidation as the server default', () => {
  const withSchema = (): Record<string, unknown> => {
    const c = crd('Namespaced', true);
    const versions = (c['spec'] as { versions: Record<string, unknown>[] }).versions;
    versions[1]!['schema'] = {
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
    };
    return c;
  };
  const body = { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g' }, spec: { size: 1, sise: 2 } };
  const path = '/apis/example.com/v1/namespaces/default/gizmos';

  it("started with 'Strict', refuses a write that does not ask, with kube-apiserver's strict decoding error", async () => {
    const strict = await InMemoryApiServer.start({ fieldValidation: 'Strict' });
    try {
      strict.create(CRD_GVR, withSchema() as NewKubeObject);
      const res = await fetch(`${strict.url}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe(
        'Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.sise"',
      );
      // A write that asks keeps what it asked for.
      const warned = await fetch(`${strict.url}${path}?fieldValidation=Warn`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(warned.status).toBe(201);
      expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.sise\\""');
    } finally {
      await strict.stop();
    }
  });

  it("defaults to 'Warn', as kube-apiserver does", async () => {
    server.create(CRD_GVR, withSchema() as NewKubeObject);
    const r = await call('POST', path, body);
    expect(r.status).toBe(201);
    expect(r.json['spec']).toEqual({ size: 1 });
  });
});
