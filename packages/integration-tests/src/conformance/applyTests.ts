import { describe, expect, it } from '@jest/globals';
import { kubeRequest, type Json, type KubeResponse } from '@protean/envtest';
import type { KubeConfig } from '@kubernetes/client-node';
import { cmPath, crPath, GROUP, metaOf, rvOf } from './fixtures.js';
import type { SuiteContext } from './SuiteContext.js';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

function apply(kc: KubeConfig, path: string, manager: string, body: Json, force = false): Promise<KubeResponse> {
  const query = `?fieldManager=${manager}${force ? '&force=true' : ''}`;
  return kubeRequest(kc, 'PATCH', path + query, { body, contentType: APPLY });
}

/**
 * `managedFields` reduced to what the tests compare (manager, operation,
 * subresource, fields), sorted by manager and subresource: entries written
 * in different seconds are ordered by time, which a test cannot pin.
 */
function ownership(obj: Json): Array<Record<string, unknown>> {
  const entries = ((metaOf(obj)['managedFields'] ?? []) as Json[]).map((e) => {
    const out: Record<string, unknown> = { manager: e['manager'], operation: e['operation'], fields: e['fieldsV1'] };
    if (e['subresource'] !== undefined) out['subresource'] = e['subresource'];
    return out;
  });
  const key = (e: Record<string, unknown>): string => `${String(e['manager'])}/${String(e['subresource'] ?? '')}`;
  return entries.sort((a, b) => key(a).localeCompare(key(b)));
}

const cm = (name: string, rest: Json = {}): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...rest });
const widget = (name: string, rest: Json = {}): Json => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, ...rest });

function conflictStatus(message: string, causes: Array<[string, string]>): Json {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'Conflict',
    code: 409,
    details: { causes: causes.map(([owner, field]) => ({ reason: 'FieldManagerConflict', message: `conflict with ${owner}`, field })) },
  };
}

/** Server-side apply: creation, field ownership in managedFields, conflicts between managers, force, removal of dropped fields. */
export function applyTests(ctx: SuiteContext): void {
  describe('server-side apply', () => {
    it('refuses an apply without a fieldManager, and force on any other patch (422 PatchOptions)', async () => {
      const ns = await ctx.namespace('apply');
      const r = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'a'), { body: cm('a', { data: { a: '1' } }), contentType: APPLY });
      expect(r.status).toBe(422);
      expect(r.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        reason: 'Invalid',
        code: 422,
        message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        details: {
          group: 'meta.k8s.io',
          kind: 'PatchOptions',
          causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
        },
      });
      await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: cm('b') });
      const forced = await kubeRequest(ctx.kc, 'PATCH', `${cmPath(ns, 'b')}?force=true`, {
        body: { data: { x: '1' } },
        contentType: MERGE,
      });
      expect(forced.status).toBe(422);
      expect(forced.json['message']).toBe(
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
      );
    });

    it('creates a missing object (201) owned by the applier, and re-applying the same configuration changes nothing', async () => {
      const ns = await ctx.namespace('apply');
      const config = cm('a', { metadata: { name: 'a', labels: { l: 'x' } }, data: { a: '1', b: '2' } });
      const created = await apply(ctx.kc, cmPath(ns, 'a'), 'alice', config);
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: ns, labels: { l: 'x' } },
        data: { a: '1', b: '2' },
      });
      expect(ownership(created.json)).toEqual([
        {
          manager: 'alice',
          operation: 'Apply',
          fields: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:l': {} } } },
        },
      ]);
      expect((metaOf(created.json)['managedFields'] as Json[])[0]).toMatchObject({
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        time: expect.stringMatching(/Z$/),
      });
      const again = await apply(ctx.kc, cmPath(ns, 'a'), 'alice', config);
      expect(again.status).toBe(200);
      expect(metaOf(again.json)['resourceVersion']).toBe(metaOf(created.json)['resourceVersion']);
    });

    it('answers a conflict between two appliers with 409 naming each field and its manager, and shares fields set to the same value', async () => {
      const ns = await ctx.namespace('apply');
      await apply(ctx.kc, cmPath(ns, 'a'), 'alice', cm('a', { data: { a: '1', b: '2' } }));
      const refused = await apply(ctx.kc, cmPath(ns, 'a'), 'bob', cm('a', { data: { a: '9', b: '8', c: '3' } }));
      expect(refused.status).toBe(409);
      expect(refused.json).toEqual(
        conflictStatus('Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\n- .data.b', [
          ['"alice"', '.data.a'],
          ['"alice"', '.data.b'],
        ]),
      );
      const shared = await apply(ctx.kc, cmPath(ns, 'a'), 'bob', cm('a', { data: { a: '1', c: '3' } }));
      expect(shared.status).toBe(200);
      expect(shared.json['data']).toEqual({ a: '1', b: '2', c: '3' });
      expect(ownership(shared.json)).toEqual([
        { manager: 'alice', operation: 'Apply', fields: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
        { manager: 'bob', operation: 'Apply', fields: { 'f:data': { 'f:a': {}, 'f:c': {} } } },
      ]);
    });

    it('takes fields from an Update manager only with force, and removes the fields an applier stops applying unless another manager owns them', async () => {
      const ns = await ctx.namespace('apply');
      await apply(ctx.kc, cmPath(ns, 'a'), 'alice', cm('a', { metadata: { name: 'a', labels: { l: 'x' } }, data: { a: '1', b: '2' } }));
      await apply(ctx.kc, cmPath(ns, 'a'), 'bob', cm('a', { data: { a: '1' } }));
      const patched = await kubeRequest(ctx.kc, 'PATCH', `${cmPath(ns, 'a')}?fieldManager=carol`, {
        body: { data: { b: 'carol' } },
        contentType: MERGE,
      });
      // An Update takes the fields it changed from every other manager.
      expect(ownership(patched.json)).toEqual([
        { manager: 'alice', operation: 'Apply', fields: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:l': {} } } } },
        { manager: 'bob', operation: 'Apply', fields: { 'f:data': { 'f:a': {} } } },
        { manager: 'carol', operation: 'Update', fields: { 'f:data': { 'f:b': {} } } },
      ]);
      const refused = await apply(ctx.kc, cmPath(ns, 'a'), 'alice', cm('a', { data: { b: 'alice' } }));
      expect(refused.json).toEqual(
        conflictStatus('Apply failed with 1 conflict: conflict with "carol" using v1: .data.b', [['"carol" using v1', '.data.b']]),
      );
      const forced = await apply(ctx.kc, cmPath(ns, 'a'), 'alice', cm('a', { data: { b: 'alice' } }), true);
      expect(forced.status).toBe(200);
      // alice dropped label l (hers alone: removed) and data.a (shared with bob: kept).
      expect(metaOf(forced.json)['labels']).toBeUndefined();
      expect(forced.json['data']).toEqual({ a: '1', b: 'alice' });
      expect(ownership(forced.json)).toEqual([
        { manager: 'alice', operation: 'Apply', fields: { 'f:data': { 'f:b': {} } } },
        { manager: 'bob', operation: 'Apply', fields: { 'f:data': { 'f:a': {} } } },
      ]);
      const emptied = await apply(ctx.kc, cmPath(ns, 'e'), 'alice', cm('e', { data: { a: '1' } }));
      expect(emptied.status).toBe(201);
      const nothing = await apply(ctx.kc, cmPath(ns, 'e'), 'alice', cm('e'));
      expect(nothing.json['data']).toBeUndefined();
      expect(metaOf(nothing.json)['managedFields']).toBeUndefined();
    });

    it('records Update ownership field by field: a create owns every field, a later update the ones it changed', async () => {
      const ns = await ctx.namespace('apply');
      const created = await kubeRequest(ctx.kc, 'POST', `${cmPath(ns)}?fieldManager=dave`, {
        body: cm('p', { metadata: { name: 'p', labels: { x: '1' } }, data: { a: '1', b: '2' } }),
      });
      expect(ownership(created.json)).toEqual([
        {
          manager: 'dave',
          operation: 'Update',
          fields: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
        },
      ]);
      const updated = await kubeRequest(ctx.kc, 'PUT', `${cmPath(ns, 'p')}?fieldManager=erin`, {
        body: { ...created.json, data: { a: '1', b: '3', c: '4' } },
      });
      expect(ownership(updated.json)).toEqual([
        {
          manager: 'dave',
          operation: 'Update',
          fields: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
        },
        { manager: 'erin', operation: 'Update', fields: { 'f:data': { 'f:b': {}, 'f:c': {} } } },
      ]);
      const refused = await apply(ctx.kc, cmPath(ns, 'p'), 'frank', cm('p', { data: { a: 'f', b: 'f', c: 'f' } }));
      expect(refused.json['message']).toBe(
        'Apply failed with 3 conflicts: conflicts with "dave" using v1:\n- .data.a\nconflicts with "erin" using v1:\n- .data.b\n- .data.c',
      );
      const bare = await kubeRequest(ctx.kc, 'POST', `${cmPath(ns)}?fieldManager=dave`, { body: cm('bare') });
      expect(metaOf(bare.json)['managedFields']).toBeUndefined();
    });

    it('owns custom resource maps as fields of their own, removes what an applier drops, and keeps status to /status', async () => {
      const ns = await ctx.namespace('apply');
      const created = await apply(
        ctx.kc,
        crPath('widgets', ns, 'w'),
        'alice',
        widget('w', {
          metadata: { name: 'w', labels: { a: '1' } },
          spec: { size: 1, tags: ['a', 'b'], nested: { x: 1, y: { z: 2 } } },
          status: { ready: true },
        }),
      );
      expect(created.status).toBe(201);
      expect(created.json['status']).toBeUndefined();
      expect(metaOf(created.json)['generation']).toBe(1);
      expect(ownership(created.json)).toEqual([
        {
          manager: 'alice',
          operation: 'Apply',
          fields: {
            'f:metadata': { 'f:labels': { 'f:a': {} } },
            'f:spec': { '.': {}, 'f:nested': { '.': {}, 'f:x': {}, 'f:y': { '.': {}, 'f:z': {} } }, 'f:size': {}, 'f:tags': {} },
          },
        },
      ]);
      const status = await apply(
        ctx.kc,
        `${crPath('widgets', ns, 'w')}/status`,
        'alice',
        widget('w', { status: { ready: true, conditions: [{ type: 'Ready', status: 'True' }] } }),
      );
      expect(status.status).toBe(200);
      expect(status.json['status']).toEqual({ ready: true, conditions: [{ type: 'Ready', status: 'True' }] });
      expect(ownership(status.json)[1]).toEqual({
        manager: 'alice',
        operation: 'Apply',
        subresource: 'status',
        fields: { 'f:status': { '.': {}, 'f:conditions': {}, 'f:ready': {} } },
      });
      const bob = await apply(ctx.kc, `${crPath('widgets', ns, 'w')}/status`, 'bob', widget('w', { status: { ready: false } }));
      expect(bob.json).toEqual(
        conflictStatus('Apply failed with 1 conflict: conflict with "alice" with subresource "status": .status.ready', [
          ['"alice" with subresource "status"', '.status.ready'],
        ]),
      );
      const nested = await apply(
        ctx.kc,
        crPath('widgets', ns, 'w'),
        'bob',
        widget('w', { spec: { nested: { y: { z: 3 } }, tags: ['c'] } }),
      );
      // Within a map, its own fields come before those of the maps inside it.
      expect(nested.json['message']).toBe('Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.tags\n- .spec.nested.y.z');
      const dropped = await apply(ctx.kc, crPath('widgets', ns, 'w'), 'alice', widget('w', { spec: { size: 2 } }));
      expect(dropped.json).toMatchObject({ spec: { size: 2 }, status: { ready: true }, metadata: { generation: 2 } });
      expect(metaOf(dropped.json)['labels']).toBeUndefined();
      const carol = await kubeRequest(ctx.kc, 'PATCH', `${crPath('widgets', ns, 'w')}?fieldManager=carol`, {
        body: { spec: { size: 5, extra: { q: 1 } } },
        contentType: MERGE,
      });
      expect(ownership(carol.json)).toEqual([
        { manager: 'alice', operation: 'Apply', fields: { 'f:spec': {} } },
        {
          manager: 'alice',
          operation: 'Apply',
          subresource: 'status',
          fields: { 'f:status': { '.': {}, 'f:conditions': {}, 'f:ready': {} } },
        },
        { manager: 'carol', operation: 'Update', fields: { 'f:spec': { 'f:extra': { '.': {}, 'f:q': {} }, 'f:size': {} } } },
      ]);
    });

    it('refuses an apply naming another kind or object, of the status of a missing object, or with a stale resourceVersion', async () => {
      const ns = await ctx.namespace('apply');
      const kind = await apply(ctx.kc, crPath('widgets', ns, 'w'), 'alice', {
        apiVersion: `${GROUP}/v1`,
        kind: 'Gizmo',
        metadata: { name: 'w' },
      });
      expect([kind.status, kind.json['message']]).toEqual([400, `invalid object type: ${GROUP}/v1, Kind=Gizmo`]);
      const untyped = await apply(ctx.kc, cmPath(ns, 'a'), 'alice', { metadata: { name: 'a' } });
      expect([untyped.status, untyped.json['message']]).toEqual([400, 'invalid object type: /, Kind=']);
      const name = await apply(ctx.kc, cmPath(ns, 'a'), 'alice', cm('zz'));
      expect([name.status, name.json['message']]).toEqual([400, 'the name of the object (zz) does not match the name on the URL (a)']);
      const missing = await apply(ctx.kc, `${crPath('widgets', ns, 'nope')}/status`, 'alice', widget('nope', { status: { ready: true } }));
      expect(missing.status).toBe(404);
      // A resourceVersion is a precondition on an existing object; a missing one is created regardless.
      const made = await apply(ctx.kc, cmPath(ns, 'v'), 'alice', cm('v', { metadata: { name: 'v', resourceVersion: '1' } }));
      expect(made.status).toBe(201);
      const stale = await apply(
        ctx.kc,
        cmPath(ns, 'v'),
        'alice',
        cm('v', { metadata: { name: 'v', resourceVersion: String(rvOf(made.json) - 1) }, data: { a: '1' } }),
      );
      expect(stale.status).toBe(409);
      expect(stale.json).toMatchObject({
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on configmaps "v": the object has been modified; please apply your changes to the latest version and try again`,
      });
    });
  });
}
