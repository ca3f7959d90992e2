import { describe, expect, it } from '@jest/globals';
import { ACCEPT_META, ACCEPT_META_LIST, createCrd, crPath, GADGET_CRD, GROUP, namesOf } from './fixtures.js';
import { KubeWatch, kubeRequest, waitUntil, type Json } from '@protean/envtest';
import type { SuiteContext } from './SuiteContext.js';

const NOT_FOUND = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
};
const PLAIN_TEXT = 'text/plain; charset=utf-8';
const PAGE_NOT_FOUND = '404 page not found\n';
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function resourceNamed(list: Json, name: string): Json | undefined {
  return ((list['resources'] ?? []) as Json[]).find((r) => r['name'] === name);
}

/** Discovery documents, unknown-resource 404s, CRDs created and deleted at runtime. */
export function discoveryTests(ctx: SuiteContext): void {
  describe('discovery and CRDs', () => {
    it('serves /api, /api/v1 and /apis/{group}/{version} with namespaced, kind and verbs', async () => {
      const api = await kubeRequest(ctx.kc, 'GET', '/api');
      expect(api.json).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
      const core = await kubeRequest(ctx.kc, 'GET', '/api/v1');
      expect(core.json).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
      expect(resourceNamed(core.json, 'configmaps')).toMatchObject({
        singularName: 'configmap',
        namespaced: true,
        kind: 'ConfigMap',
        shortNames: ['cm'],
      });
      expect([...((resourceNamed(core.json, 'configmaps')?.['verbs'] ?? []) as string[])].sort()).toEqual(ALL_VERBS);
      expect(resourceNamed(core.json, 'namespaces')).toMatchObject({ namespaced: false, kind: 'Namespace' });

      const group = await kubeRequest(ctx.kc, 'GET', `/apis/${GROUP}/v1`);
      expect(group.json).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${GROUP}/v1` });
      const widgets = resourceNamed(group.json, 'widgets');
      expect(widgets).toMatchObject({ singularName: 'widget', namespaced: true, kind: 'Widget' });
      expect([...((widgets?.['verbs'] ?? []) as string[])].sort()).toEqual(ALL_VERBS);
      expect(resourceNamed(group.json, 'widgets/status')).toMatchObject({
        namespaced: true,
        kind: 'Widget',
        verbs: ['get', 'patch', 'update'],
      });
      expect(resourceNamed(group.json, 'things')).toMatchObject({ kind: 'Thing' });
      expect(resourceNamed(group.json, 'things/status')).toBeUndefined();
    });

    it('lists custom groups in /apis and /apis/{group} with their preferred version', async () => {
      const apis = await kubeRequest(ctx.kc, 'GET', '/apis');
      expect(apis.json['kind']).toBe('APIGroupList');
      const entry = {
        name: GROUP,
        versions: [{ groupVersion: `${GROUP}/v1`, version: 'v1' }],
        preferredVersion: { groupVersion: `${GROUP}/v1`, version: 'v1' },
      };
      expect(apis.json['groups']).toEqual(expect.arrayContaining([entry]));
      const group = await kubeRequest(ctx.kc, 'GET', `/apis/${GROUP}`);
      expect(group.json).toMatchObject({ kind: 'APIGroup', apiVersion: 'v1', ...entry });
    });

    it('answers 404 with a NotFound Status under built-in groups and a plain-text 404 under custom or unknown groups', async () => {
      for (const path of ['/api/v1/namespaces/default/foos', '/api/v1/foos', '/apis/apiextensions.k8s.io/v1/foos']) {
        const r = await kubeRequest(ctx.kc, 'GET', path);
        expect([path, r.status, r.headers['content-type']]).toEqual([path, 404, 'application/json']);
        expect(r.json).toEqual(NOT_FOUND);
      }
      // Paths no built-in group serves fall through to the server's generic not-found handler.
      for (const path of [
        `/apis/${GROUP}/v1/namespaces/default/nopes`,
        `/apis/${GROUP}/v2`,
        '/apis/nope.example/v1/bars',
        '/apis/nope.example/v1',
        '/apis/nope.example',
      ]) {
        const r = await kubeRequest(ctx.kc, 'GET', path);
        expect([path, r.status, r.headers['content-type'], r.text]).toEqual([path, 404, PLAIN_TEXT, PAGE_NOT_FOUND]);
      }
    });

    it('serves a CRD created at runtime, and 404s it again once the CRD is deleted', async () => {
      const ns = await ctx.namespace('crd');
      await createCrd(ctx.kc, GADGET_CRD);
      const discovery = await kubeRequest(ctx.kc, 'GET', `/apis/${GROUP}/v1`);
      expect(resourceNamed(discovery.json, 'gadgets')).toMatchObject({ kind: 'Gadget', namespaced: true });
      const g = await kubeRequest(ctx.kc, 'POST', crPath('gadgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: {} },
      });
      expect(g.status).toBe(201);
      const crd = await kubeRequest(ctx.kc, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${GROUP}`);
      const conditions = ((crd.json['status'] as Json | undefined)?.['conditions'] ?? []) as Json[];
      expect(conditions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'Established', status: 'True' }),
          expect.objectContaining({ type: 'NamesAccepted', status: 'True' }),
        ]),
      );

      const del = await kubeRequest(ctx.kc, 'DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${GROUP}`);
      expect(del.status).toBe(200);
      expect(del.json).toMatchObject({ kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${GROUP}` } });
      await waitUntil(
        async () => (await kubeRequest(ctx.kc, 'GET', crPath('gadgets', ns))).status === 404,
        'gadgets to stop being served',
        30_000,
      );
      expect((await kubeRequest(ctx.kc, 'GET', crPath('gadgets', ns, 'g'))).text).toBe(PAGE_NOT_FOUND);
      await waitUntil(
        async () => resourceNamed((await kubeRequest(ctx.kc, 'GET', `/apis/${GROUP}/v1`)).json, 'gadgets') === undefined,
        'gadgets to leave discovery',
        30_000,
      );
      const gone = await kubeRequest(ctx.kc, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${GROUP}`);
      expect(gone.status).toBe(404);
    });
    it('tells a metadata watch of the CRDs when one is created and deleted, and serves it created again without the objects it had', async () => {
      const ns = await ctx.namespace('recreate');
      const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${GROUP}`;
      const list = await kubeRequest(ctx.kc, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        accept: ACCEPT_META_LIST,
      });
      const from = String(((list.json['metadata'] ?? {}) as Json)['resourceVersion']);
      const w = await KubeWatch.open(
        ctx.kc,
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1&resourceVersion=${from}`,
        ACCEPT_META,
      );
      try {
        await createCrd(ctx.kc, GADGET_CRD);
        const created = await kubeRequest(ctx.kc, 'POST', crPath('gadgets', ns), {
          body: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'old' }, spec: {} },
        });
        expect(created.status).toBe(201);
        expect((await kubeRequest(ctx.kc, 'DELETE', crdPath)).status).toBe(200);
        await waitUntil(async () => (await kubeRequest(ctx.kc, 'GET', crdPath)).status === 404, 'the CRD to be gone', 30_000);
        await waitUntil(async () => w.events.some((e) => e.type === 'DELETED'), 'the CRD watch to hear of the deletion', 30_000);
        const named = w.events.filter((e) => (e.object.metadata as Json | undefined)?.['name'] === `gadgets.${GROUP}`);
        // Metadata only, as an informer of the CRDs asks; created first, deleted last (the server may change it between).
        expect(named[0]).toMatchObject({ type: 'ADDED', object: { kind: 'PartialObjectMetadata' } });
        expect(named.at(-1)?.type).toBe('DELETED');
      } finally {
        w.close();
      }
      await createCrd(ctx.kc, GADGET_CRD);
      const again = await kubeRequest(ctx.kc, 'GET', crPath('gadgets', ns));
      expect(again.status).toBe(200);
      expect(namesOf(again.json)).toEqual([]);
      expect((await kubeRequest(ctx.kc, 'DELETE', crdPath)).status).toBe(200);
      await waitUntil(async () => (await kubeRequest(ctx.kc, 'GET', crdPath)).status === 404, 'the CRD to be gone again', 30_000);
    });
  });
}
