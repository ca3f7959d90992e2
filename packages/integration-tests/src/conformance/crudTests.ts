import { describe, expect, it } from '@jest/globals';
import { cmPath, crPath, GROUP, metaOf, rvOf } from './fixtures.js';
import { kubeRequest, type Json } from '@protean/envtest';
import type { SuiteContext } from './SuiteContext.js';

const STALE_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

/** CRUD, resourceVersion and generation semantics, status subresource, error and DELETE bodies. */
export function crudTests(ctx: SuiteContext): void {
  describe('CRUD and resourceVersions', () => {
    it('creates a ConfigMap with uid, timestamp, a decimal-string resourceVersion, managedFields and no generation', async () => {
      const ns = await ctx.namespace('crud');
      const r = await kubeRequest(ctx.kc, 'POST', cmPath(ns), {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } },
      });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } });
      const meta = metaOf(r.json);
      expect(meta).toMatchObject({ name: 'a', namespace: ns });
      expect(meta['uid']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(meta['creationTimestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(rvOf(r.json)).toBeGreaterThan(0);
      expect(meta['generation']).toBeUndefined();
      expect(meta['managedFields']).toEqual([
        expect.objectContaining({ manager: 'protean-conformance', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1' }),
      ]);
      const got = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'a'));
      expect(got.json).toEqual(r.json);
    });

    it('increases the resourceVersion on every change and keeps it on an update that changes nothing', async () => {
      const ns = await ctx.namespace('crud');
      const created = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'a' }, data: { n: '1' } } });
      const changed = await kubeRequest(ctx.kc, 'PUT', cmPath(ns, 'a'), { body: { ...created.json, data: { n: '2' } } });
      expect(changed.status).toBe(200);
      expect(rvOf(changed.json)).toBeGreaterThan(rvOf(created.json));
      const same = await kubeRequest(ctx.kc, 'PUT', cmPath(ns, 'a'), { body: changed.json });
      expect(same.status).toBe(200);
      expect(metaOf(same.json)['resourceVersion']).toBe(metaOf(changed.json)['resourceVersion']);
      const patched = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'a'), {
        body: { data: { n: '3' } },
        contentType: 'application/merge-patch+json',
      });
      expect(patched.status).toBe(200);
      expect(rvOf(patched.json)).toBeGreaterThan(rvOf(changed.json));
      expect(patched.json['data']).toEqual({ n: '3' });
    });

    it('sets generation 1 on a custom resource and bumps it on spec changes only', async () => {
      const ns = await ctx.namespace('gen');
      const w = await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } },
      });
      expect(w.status).toBe(201);
      expect(metaOf(w.json)['generation']).toBe(1);
      const spec = await kubeRequest(ctx.kc, 'PUT', crPath('widgets', ns, 'w'), { body: { ...w.json, spec: { size: 2 } } });
      expect(metaOf(spec.json)['generation']).toBe(2);
      const labelled = await kubeRequest(ctx.kc, 'PATCH', crPath('widgets', ns, 'w'), {
        body: { metadata: { labels: { x: 'y' } } },
        contentType: 'application/merge-patch+json',
      });
      expect(metaOf(labelled.json)).toMatchObject({ generation: 2, labels: { x: 'y' } });
      expect(rvOf(labelled.json)).toBeGreaterThan(rvOf(spec.json));
      const merged = await kubeRequest(ctx.kc, 'PATCH', crPath('widgets', ns, 'w'), {
        body: { spec: { size: 3 } },
        contentType: 'application/merge-patch+json',
      });
      expect(metaOf(merged.json)['generation']).toBe(3);
    });

    it('ignores status on the main endpoint and everything but status on /status, without bumping generation', async () => {
      const ns = await ctx.namespace('status');
      const w = await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 }, status: { ready: true } },
      });
      expect(w.json['status']).toBeUndefined();
      const viaMain = await kubeRequest(ctx.kc, 'PUT', crPath('widgets', ns, 'w'), { body: { ...w.json, status: { ready: true } } });
      expect(viaMain.status).toBe(200);
      expect(viaMain.json['status']).toBeUndefined();
      expect(metaOf(viaMain.json)['resourceVersion']).toBe(metaOf(w.json)['resourceVersion']);
      const viaStatus = await kubeRequest(ctx.kc, 'PUT', `${crPath('widgets', ns, 'w')}/status`, {
        body: { ...w.json, spec: { size: 9 }, status: { ready: true } },
      });
      expect(viaStatus.status).toBe(200);
      expect(viaStatus.json).toMatchObject({ spec: { size: 1 }, status: { ready: true } });
      expect(metaOf(viaStatus.json)['generation']).toBe(1);
      expect(rvOf(viaStatus.json)).toBeGreaterThan(rvOf(w.json));
      const mf = metaOf(viaStatus.json)['managedFields'] as Json[];
      expect(mf).toEqual(expect.arrayContaining([expect.objectContaining({ manager: 'protean-conformance', subresource: 'status' })]));
      const patched = await kubeRequest(ctx.kc, 'PATCH', `${crPath('widgets', ns, 'w')}/status`, {
        body: { status: { phase: 'Up' } },
        contentType: 'application/merge-patch+json',
      });
      expect(patched.json).toMatchObject({ spec: { size: 1 }, status: { ready: true, phase: 'Up' }, metadata: { generation: 1 } });
    });

    it('without a status subresource stores status through the main endpoint and bumps generation for it', async () => {
      const ns = await ctx.namespace('nostatus');
      const t = await kubeRequest(ctx.kc, 'POST', crPath('things', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name: 't' }, spec: { a: 1 }, status: { s: 1 } },
      });
      expect(t.json).toMatchObject({ status: { s: 1 }, metadata: { generation: 1 } });
      const s = await kubeRequest(ctx.kc, 'PUT', crPath('things', ns, 't'), { body: { ...t.json, status: { s: 2 } } });
      expect(s.json).toMatchObject({ status: { s: 2 }, metadata: { generation: 2 } });
      const sub = await kubeRequest(ctx.kc, 'GET', `${crPath('things', ns, 't')}/status`);
      expect(sub.status).toBe(404);
    });

    it('refuses a custom resource update without metadata.resourceVersion (422 Invalid)', async () => {
      const ns = await ctx.namespace('unconditional');
      await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: {} },
      });
      const r = await kubeRequest(ctx.kc, 'PUT', crPath('widgets', ns, 'w'), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { a: 1 } },
      });
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({
        kind: 'Status',
        reason: 'Invalid',
        code: 422,
        // Custom resources name the plural resource here, built-ins the Kind.
        message: `widgets.${GROUP} "w" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`,
        details: {
          name: 'w',
          group: GROUP,
          kind: 'widgets',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: 0: must be specified for an update',
              field: 'metadata.resourceVersion',
            },
          ],
        },
      });
    });
  });

  describe('error and DELETE bodies', () => {
    it('answers 409 AlreadyExists with a Status body for ConfigMaps and custom resources', async () => {
      const ns = await ctx.namespace('exists');
      await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'dup' } } });
      const cm = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'dup' } } });
      expect(cm.status).toBe(409);
      expect(cm.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "dup" already exists',
        reason: 'AlreadyExists',
        details: { name: 'dup', kind: 'configmaps' },
        code: 409,
      });
      const body = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'dup' }, spec: {} };
      await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), { body });
      const cr = await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), { body });
      expect(cr.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `widgets.${GROUP} "dup" already exists`,
        reason: 'AlreadyExists',
        details: { name: 'dup', group: GROUP, kind: 'widgets' },
        code: 409,
      });
    });

    it('answers 409 Conflict to an update with a stale resourceVersion', async () => {
      const ns = await ctx.namespace('conflict');
      const v1 = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'c' }, data: { n: '1' } } });
      await kubeRequest(ctx.kc, 'PUT', cmPath(ns, 'c'), { body: { ...v1.json, data: { n: '2' } } });
      const stale = await kubeRequest(ctx.kc, 'PUT', cmPath(ns, 'c'), { body: { ...v1.json, data: { n: '3' } } });
      expect(stale.status).toBe(409);
      expect(stale.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Operation cannot be fulfilled on configmaps "c": ${STALE_MESSAGE}`,
        reason: 'Conflict',
        details: { name: 'c', kind: 'configmaps' },
        code: 409,
      });
    });

    it('answers 404 NotFound with a Status body for a missing object', async () => {
      const ns = await ctx.namespace('missing');
      const r = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'nope'));
      expect(r.status).toBe(404);
      expect(r.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "nope" not found',
        reason: 'NotFound',
        details: { name: 'nope', kind: 'configmaps' },
        code: 404,
      });
      const del = await kubeRequest(ctx.kc, 'DELETE', crPath('widgets', ns, 'nope'));
      expect(del.json).toMatchObject({
        reason: 'NotFound',
        message: `widgets.${GROUP} "nope" not found`,
        details: { name: 'nope', group: GROUP, kind: 'widgets' },
        code: 404,
      });
    });

    it('answers DELETE of a ConfigMap or a custom resource removed at once with a Success Status naming it', async () => {
      const ns = await ctx.namespace('delete');
      const cm = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'd' } } });
      const delCm = await kubeRequest(ctx.kc, 'DELETE', cmPath(ns, 'd'));
      expect(delCm.status).toBe(200);
      expect(delCm.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: 'd', kind: 'configmaps', uid: metaOf(cm.json)['uid'] },
      });
      const w = await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'd' }, spec: { a: 1 } },
      });
      const delCr = await kubeRequest(ctx.kc, 'DELETE', crPath('widgets', ns, 'd'));
      expect(delCr.status).toBe(200);
      expect(delCr.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: 'd', group: GROUP, kind: 'widgets', uid: metaOf(w.json)['uid'] },
      });
      expect((await kubeRequest(ctx.kc, 'GET', crPath('widgets', ns, 'd'))).status).toBe(404);
      expect((await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'd'))).status).toBe(404);
    });

    it('answers a delete-collection with the deleted items as a list (typed for built-ins)', async () => {
      const ns = await ctx.namespace('deletecollection');
      for (const name of ['a', 'b', 'keep']) {
        await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name, labels: name === 'keep' ? {} : { x: '1' } } } });
      }
      const last = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'keep'));
      const cms = await kubeRequest(ctx.kc, 'DELETE', `${cmPath(ns)}?labelSelector=x%3D1`);
      expect(cms.status).toBe(200);
      expect(cms.json).toMatchObject({
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: metaOf(last.json)['resourceVersion'] },
      });
      expect((cms.json['items'] as Json[]).map((i) => [i['kind'], metaOf(i)['name']])).toEqual([
        [undefined, 'a'],
        [undefined, 'b'],
      ]);
      const w = await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: {} },
      });
      const ws = await kubeRequest(ctx.kc, 'DELETE', crPath('widgets', ns));
      expect(ws.json).toEqual({
        apiVersion: `${GROUP}/v1`,
        kind: 'WidgetList',
        metadata: { continue: '', resourceVersion: metaOf(w.json)['resourceVersion'] },
        items: [expect.objectContaining({ kind: 'Widget', metadata: expect.objectContaining({ name: 'w' }) })],
      });
      const left = await kubeRequest(ctx.kc, 'GET', cmPath(ns));
      expect((left.json['items'] as Json[]).map((i) => metaOf(i)['name'])).toEqual(['keep']);
    });

    it('answers DELETE of an object held by finalizers with the object, now carrying deletionTimestamp, until they are removed', async () => {
      const ns = await ctx.namespace('finalizers');
      await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'f', finalizers: ['example.com/hold'] }, spec: {} },
      });
      const del = await kubeRequest(ctx.kc, 'DELETE', crPath('widgets', ns, 'f'));
      expect(del.status).toBe(200);
      expect(del.json).toMatchObject({
        kind: 'Widget',
        apiVersion: `${GROUP}/v1`,
        metadata: { name: 'f', generation: 2, deletionGracePeriodSeconds: 0, finalizers: ['example.com/hold'] },
      });
      expect(metaOf(del.json)['deletionTimestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const held = await kubeRequest(ctx.kc, 'GET', crPath('widgets', ns, 'f'));
      expect(held.status).toBe(200);
      const released = await kubeRequest(ctx.kc, 'PATCH', crPath('widgets', ns, 'f'), {
        body: { metadata: { finalizers: null } },
        contentType: 'application/merge-patch+json',
      });
      expect(released.status).toBe(200);
      expect((await kubeRequest(ctx.kc, 'GET', crPath('widgets', ns, 'f'))).status).toBe(404);
    });
  });
}
