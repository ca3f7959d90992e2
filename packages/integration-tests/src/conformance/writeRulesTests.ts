import { describe, expect, it } from '@jest/globals';
import { kubeRequest, type Json } from '@protean/envtest';
import { cmPath, crPath, GROUP, metaOf } from './fixtures.js';
import type { SuiteContext } from './SuiteContext.js';

const MERGE = 'application/merge-patch+json';
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

function secretPath(ns: string, name?: string): string {
  return `/api/v1/namespaces/${ns}/secrets${name === undefined ? '' : `/${name}`}`;
}

/** The write rules controllers lean on: Secret stringData, finalizers holding a deletion, owner references kept as written. */
export function writeRulesTests(ctx: SuiteContext): void {
  describe('Secret stringData', () => {
    it('folds stringData into base64 data on create, replace, merge patch and apply, and never stores it', async () => {
      const ns = await ctx.namespace('secret');
      const created = await kubeRequest(ctx.kc, 'POST', secretPath(ns), {
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 's' },
          stringData: { a: 'hello', b: 'wins' },
          data: { b: b64('loses'), c: b64('kept') },
        },
      });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ type: 'Opaque', data: { a: b64('hello'), b: b64('wins'), c: b64('kept') } });
      expect(created.json['stringData']).toBeUndefined();
      const replaced = await kubeRequest(ctx.kc, 'PUT', secretPath(ns, 's'), {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { a: 'bye' } },
      });
      expect(replaced.json['data']).toEqual({ a: b64('bye') });
      const patched = await kubeRequest(ctx.kc, 'PATCH', secretPath(ns, 's'), { body: { stringData: { c: 'sea' } }, contentType: MERGE });
      expect(patched.json['data']).toEqual({ a: b64('bye'), c: b64('sea') });
      const applied = await kubeRequest(ctx.kc, 'PATCH', `${secretPath(ns, 't')}?fieldManager=alice`, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 't' }, stringData: { token: 'xyz' } },
        contentType: 'application/apply-patch+yaml',
      });
      expect(applied.status).toBe(201);
      expect(applied.json).toMatchObject({ data: { token: b64('xyz') }, type: 'Opaque' });
      expect((metaOf(applied.json)['managedFields'] as Json[]).map((e) => e['fieldsV1'])).toEqual([{ 'f:stringData': { 'f:token': {} } }]);
      const got = await kubeRequest(ctx.kc, 'GET', secretPath(ns, 't'));
      expect(got.json['stringData']).toBeUndefined();
    });
  });

  describe('finalizers', () => {
    it('holds a deleted ConfigMap with a deletionTimestamp until the last finalizer goes, refusing new ones meanwhile', async () => {
      const ns = await ctx.namespace('finalizer');
      await kubeRequest(ctx.kc, 'POST', cmPath(ns), {
        body: { metadata: { name: 'f', finalizers: ['example.com/a', 'example.com/b'] }, data: { k: 'v' } },
      });
      const del = await kubeRequest(ctx.kc, 'DELETE', cmPath(ns, 'f'));
      expect(del.status).toBe(200);
      expect(del.json).toMatchObject({
        kind: 'ConfigMap',
        metadata: { name: 'f', deletionGracePeriodSeconds: 0, finalizers: ['example.com/a', 'example.com/b'] },
      });
      expect(metaOf(del.json)['deletionTimestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const again = await kubeRequest(ctx.kc, 'DELETE', cmPath(ns, 'f'));
      expect(again.status).toBe(200);
      expect(metaOf(again.json)['deletionTimestamp']).toBe(metaOf(del.json)['deletionTimestamp']);
      const added = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'f'), {
        body: { metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } },
        contentType: MERGE,
      });
      expect(added.status).toBe(422);
      // The real server lists this cause twice; what matters is that it is there.
      expect(added.json).toMatchObject({
        reason: 'Invalid',
        details: {
          causes: expect.arrayContaining([expect.objectContaining({ field: 'metadata.finalizers', reason: 'FieldValueForbidden' })]),
        },
      });
      const one = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'f'), {
        body: { metadata: { finalizers: ['example.com/b'] } },
        contentType: MERGE,
      });
      expect(one.status).toBe(200);
      expect((await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'f'))).status).toBe(200);
      const last = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'f'), { body: { metadata: { finalizers: [] } }, contentType: MERGE });
      expect(last.status).toBe(200);
      expect((await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'f'))).status).toBe(404);
    });

    it('refuses a finalizer change with a stale resourceVersion in a merge patch (409), the optimistic concurrency finalizer helpers rely on', async () => {
      const ns = await ctx.namespace('finalizer');
      const created = await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: {} },
      });
      const rv = metaOf(created.json)['resourceVersion'];
      await kubeRequest(ctx.kc, 'PATCH', crPath('widgets', ns, 'w'), { body: { spec: { size: 1 } }, contentType: MERGE });
      const stale = await kubeRequest(ctx.kc, 'PATCH', crPath('widgets', ns, 'w'), {
        body: { metadata: { finalizers: ['example.com/a'], resourceVersion: rv } },
        contentType: MERGE,
      });
      expect(stale.status).toBe(409);
      expect(stale.json).toMatchObject({ reason: 'Conflict' });
    });
  });

  describe('owner references', () => {
    it('stores owner references as written and keeps them through merge patches of other fields', async () => {
      const ns = await ctx.namespace('owners');
      const owner = await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'o' }, spec: {} },
      });
      const ref = {
        apiVersion: `${GROUP}/v1`,
        kind: 'Widget',
        name: 'o',
        uid: metaOf(owner.json)['uid'],
        controller: true,
        blockOwnerDeletion: true,
      };
      const child = await kubeRequest(ctx.kc, 'POST', cmPath(ns), {
        body: { metadata: { name: 'c', ownerReferences: [ref] }, data: { a: '1' } },
      });
      expect(child.status).toBe(201);
      expect(metaOf(child.json)['ownerReferences']).toEqual([ref]);
      const patched = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'c'), { body: { data: { a: '2' } }, contentType: MERGE });
      expect(metaOf(patched.json)['ownerReferences']).toEqual([ref]);
      const got = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'c'));
      expect(metaOf(got.json)['ownerReferences']).toEqual([ref]);
    });
  });

  describe('events.k8s.io/v1 events', () => {
    it('creates an Event and counts further occurrences into its series with a merge patch', async () => {
      const ns = await ctx.namespace('events');
      const owner = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'o' } } });
      const path = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
      const event = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'o.1' },
        eventTime: '2026-12-01T10:00:00.000000Z',
        reportingController: 'conformance.protean.dev/recorder',
        reportingInstance: 'recorder-0',
        action: 'Reconcile',
        reason: 'Busy',
        type: 'Warning',
        note: 'try again',
        regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', namespace: ns, uid: metaOf(owner.json)['uid'] },
      };
      const created = await kubeRequest(ctx.kc, 'POST', path, { body: event });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ ...event, metadata: { name: 'o.1', namespace: ns } });
      const series = { count: 7, lastObservedTime: '2026-12-01T10:00:05.000000Z' };
      const patched = await kubeRequest(ctx.kc, 'PATCH', `${path}/o.1`, { body: { series }, contentType: MERGE });
      expect(patched.status).toBe(200);
      expect(patched.json).toMatchObject({ series, reason: 'Busy', eventTime: event.eventTime });
      const list = await kubeRequest(ctx.kc, 'GET', path);
      expect(((list.json['items'] ?? []) as Json[]).map((i) => metaOf(i)['name'])).toEqual(['o.1']);
    });
  });
}
