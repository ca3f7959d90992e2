import { describe, expect, it } from '@jest/globals';
import { cmPath, metaOf, namesOf } from './fixtures.js';
import { kubeRequest } from '@protean/envtest';
import type { SuiteContext } from './SuiteContext.js';

/** Namespaces, generateName and field selectors. */
export function namespaceTests(ctx: SuiteContext): void {
  describe('namespaces, names and field selectors', () => {
    it('defaults a new Namespace: name label, kubernetes finalizer, phase Active', async () => {
      const ns = await ctx.namespace('shape');
      const r = await kubeRequest(ctx.kc, 'GET', `/api/v1/namespaces/${ns}`);
      expect(r.json).toMatchObject({
        kind: 'Namespace',
        apiVersion: 'v1',
        metadata: { name: ns, labels: { 'kubernetes.io/metadata.name': ns } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      });
    });

    it('refuses to create in a namespace that does not exist (404 naming the namespace)', async () => {
      const r = await kubeRequest(ctx.kc, 'POST', cmPath('no-such-namespace'), { body: { metadata: { name: 'a' } } });
      expect(r.status).toBe(404);
      expect(r.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'namespaces "no-such-namespace" not found',
        reason: 'NotFound',
        details: { name: 'no-such-namespace', kind: 'namespaces' },
        code: 404,
      });
    });

    it('names an object from generateName with a 5-character suffix', async () => {
      const ns = await ctx.namespace('generate');
      const r = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { generateName: 'gen-' } } });
      expect(r.status).toBe(201);
      expect(metaOf(r.json)).toMatchObject({ generateName: 'gen-', name: expect.stringMatching(/^gen-[a-z0-9]{5}$/) });
    });

    it('filters a LIST by metadata.name and metadata.namespace field selectors', async () => {
      const ns = await ctx.namespace('fields');
      for (const name of ['a', 'b', 'c']) await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name } } });
      const byName = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?fieldSelector=metadata.name%3Db`);
      expect(namesOf(byName.json)).toEqual(['b']);
      const notName = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?fieldSelector=metadata.name!%3Db`);
      expect(namesOf(notName.json)).toEqual(['a', 'c']);
      const byNs = await kubeRequest(ctx.kc, 'GET', `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns}`);
      expect(namesOf(byNs.json)).toEqual(['a', 'b', 'c']);
      const bad = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?fieldSelector=spec.nope%3D1`);
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    });
  });
}
