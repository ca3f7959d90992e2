import { describe, expect, it } from '@jest/globals';
import { kubeRequest, type Json } from '@protean/envtest';
import { metaOf, rvOf } from './fixtures.js';
import type { SuiteContext } from './SuiteContext.js';

function leasePath(ns: string, name?: string): string {
  return `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases${name === undefined ? '' : `/${name}`}`;
}

const SPEC = {
  holderIdentity: 'a',
  leaseDurationSeconds: 15,
  acquireTime: '2026-12-01T10:00:00.123456Z',
  renewTime: '2026-12-01T10:00:00.123456Z',
  leaseTransitions: 0,
};

/** coordination.k8s.io/v1 Leases as leader election uses them: GET, POST, PUT guarded by resourceVersion. */
export function leaseTests(ctx: SuiteContext): void {
  describe('coordination.k8s.io/v1 leases', () => {
    it('is discoverable, and GET of a missing lease is a 404 NotFound naming leases.coordination.k8s.io', async () => {
      const ns = await ctx.namespace('lease');
      const discovery = await kubeRequest(ctx.kc, 'GET', '/apis/coordination.k8s.io/v1');
      const leases = ((discovery.json['resources'] ?? []) as Json[]).find((r) => r['name'] === 'leases');
      expect(leases).toMatchObject({ singularName: 'lease', namespaced: true, kind: 'Lease' });
      const missing = await kubeRequest(ctx.kc, 'GET', leasePath(ns, 'x'));
      expect(missing.status).toBe(404);
      expect(missing.json).toMatchObject({
        reason: 'NotFound',
        message: 'leases.coordination.k8s.io "x" not found',
        details: { name: 'x', group: 'coordination.k8s.io', kind: 'leases' },
      });
    });

    it('creates a lease once (a second create is 409 AlreadyExists), keeping MicroTime fields and setting no generation', async () => {
      const ns = await ctx.namespace('lease');
      const created = await kubeRequest(ctx.kc, 'POST', leasePath(ns), {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'x' }, spec: SPEC },
      });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: SPEC });
      expect(metaOf(created.json)['generation']).toBeUndefined();
      const again = await kubeRequest(ctx.kc, 'POST', leasePath(ns), { body: { metadata: { name: 'x' }, spec: SPEC } });
      expect(again.status).toBe(409);
      expect(again.json).toMatchObject({ reason: 'AlreadyExists' });
    });

    it('updates with the current resourceVersion, answers 409 Conflict to a stale one and 422 to none', async () => {
      const ns = await ctx.namespace('lease');
      const created = await kubeRequest(ctx.kc, 'POST', leasePath(ns), { body: { metadata: { name: 'x' }, spec: SPEC } });
      const renewed = await kubeRequest(ctx.kc, 'PUT', leasePath(ns, 'x'), {
        body: { ...created.json, spec: { ...SPEC, renewTime: '2026-12-01T10:00:02.000000Z' } },
      });
      expect(renewed.status).toBe(200);
      expect(rvOf(renewed.json)).toBeGreaterThan(rvOf(created.json));
      const stale = await kubeRequest(ctx.kc, 'PUT', leasePath(ns, 'x'), {
        body: { ...created.json, spec: { ...SPEC, holderIdentity: 'b' } },
      });
      expect(stale.status).toBe(409);
      expect(stale.json).toMatchObject({ reason: 'Conflict', message: expect.stringContaining('the object has been modified') });
      const unconditional = { ...renewed.json, metadata: { ...metaOf(renewed.json), resourceVersion: undefined } };
      const none = await kubeRequest(ctx.kc, 'PUT', leasePath(ns, 'x'), { body: unconditional });
      expect(none.status).toBe(422);
      expect(none.json['message']).toBe(
        'leases.coordination.k8s.io "x" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
      );
      const current = await kubeRequest(ctx.kc, 'GET', leasePath(ns, 'x'));
      expect(current.json['spec']).toMatchObject({ holderIdentity: 'a', renewTime: '2026-12-01T10:00:02.000000Z' });
    });

    it('accepts an empty holder (a released lease) and rejects millisecond times (400) and a zero duration (422)', async () => {
      const ns = await ctx.namespace('lease');
      const released = await kubeRequest(ctx.kc, 'POST', leasePath(ns), {
        body: { metadata: { name: 'free' }, spec: { holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 3 } },
      });
      expect(released.status).toBe(201);
      expect(released.json['spec']).toEqual({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 3 });
      const millis = await kubeRequest(ctx.kc, 'POST', leasePath(ns), {
        body: { metadata: { name: 'ms' }, spec: { renewTime: '2026-12-01T10:00:00.123Z' } },
      });
      expect(millis.status).toBe(400);
      expect(millis.json).toMatchObject({
        reason: 'BadRequest',
        message: expect.stringContaining('parsing time "2026-12-01T10:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00"'),
      });
      const zero = await kubeRequest(ctx.kc, 'POST', leasePath(ns), {
        body: { metadata: { name: 'zero' }, spec: { leaseDurationSeconds: 0 } },
      });
      expect(zero.status).toBe(422);
      expect(zero.json['message']).toBe(
        'Lease.coordination.k8s.io "zero" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      );
      const negative = await kubeRequest(ctx.kc, 'POST', leasePath(ns), {
        body: { metadata: { name: 'neg' }, spec: { leaseTransitions: -1 } },
      });
      expect(negative.status).toBe(422);
      expect(negative.json['message']).toBe(
        'Lease.coordination.k8s.io "neg" is invalid: spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      );
    });
  });
}
