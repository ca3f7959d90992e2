import { describe, expect, it } from '@jest/globals';
import { ACCEPT_META, ACCEPT_META_LIST, cmPath, crPath, GROUP, metaOf, namesOf } from './fixtures.js';
import { kubeRequest, type Json } from '@protean/envtest';
import type { SuiteContext } from './SuiteContext.js';

/** LIST: selectors, list shape, pagination, metadata-only responses. */
export function listTests(ctx: SuiteContext): void {
  async function configMaps(ns: string, specs: Array<[string, Record<string, string>]>): Promise<void> {
    for (const [name, labels] of specs) {
      const r = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name, labels }, data: { payload: name } } });
      if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.text}`);
    }
  }

  describe('LIST', () => {
    it('filters by label selector: =, !=, in, notin, exists, !exists and a combination', async () => {
      const ns = await ctx.namespace('selector');
      await configMaps(ns, [
        ['a', { app: 'a', tier: 'web' }],
        ['b', { app: 'b' }],
        ['c', { app: 'c', tier: 'db' }],
        ['d', {}],
      ]);
      const select = async (sel: string): Promise<string[]> => {
        const r = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?labelSelector=${encodeURIComponent(sel)}`);
        expect(r.status).toBe(200);
        return namesOf(r.json);
      };
      expect(await select('app=a')).toEqual(['a']);
      expect(await select('app==b')).toEqual(['b']);
      expect(await select('app!=a')).toEqual(['b', 'c', 'd']);
      expect(await select('app in (a,b)')).toEqual(['a', 'b']);
      expect(await select('app notin (a,b)')).toEqual(['c', 'd']);
      expect(await select('tier')).toEqual(['a', 'c']);
      expect(await select('!tier')).toEqual(['b', 'd']);
      expect(await select('app,!tier')).toEqual(['b']);
      expect(await select('app in (a,c),tier!=db')).toEqual(['a']);
    });

    it('rejects an unparsable label selector with 400 BadRequest', async () => {
      const ns = await ctx.namespace('badselector');
      const r = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?labelSelector=${encodeURIComponent('app in (a')}`);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    });

    it('returns a typed list: kind/apiVersion on the list, items of built-ins without them, custom resources with them', async () => {
      const ns = await ctx.namespace('shape');
      await configMaps(ns, [['a', {}]]);
      const cms = await kubeRequest(ctx.kc, 'GET', cmPath(ns));
      expect(cms.json).toMatchObject({
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: expect.stringMatching(/^\d+$/) },
      });
      const item = (cms.json['items'] as Json[])[0] as Json;
      expect(item['kind']).toBeUndefined();
      expect(item['apiVersion']).toBeUndefined();
      await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: {} },
      });
      const ws = await kubeRequest(ctx.kc, 'GET', crPath('widgets', ns));
      expect(ws.json).toMatchObject({
        kind: 'WidgetList',
        apiVersion: `${GROUP}/v1`,
        items: [{ kind: 'Widget', apiVersion: `${GROUP}/v1` }],
      });
    });

    it('pages with limit and continue over one consistent snapshot, with remainingItemCount', async () => {
      const ns = await ctx.namespace('pages');
      await configMaps(
        ns,
        ['a', 'b', 'c', 'd', 'e'].map((n) => [n, {}] as [string, Record<string, string>]),
      );
      const p1 = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?limit=2`);
      expect(namesOf(p1.json)).toEqual(['a', 'b']);
      const m1 = metaOf(p1.json);
      expect(m1).toMatchObject({ remainingItemCount: 3, continue: expect.any(String) });
      // A write after the first page is not part of the snapshot.
      await configMaps(ns, [['bb', {}]]);
      const p2 = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?limit=2&continue=${encodeURIComponent(m1['continue'] as string)}`);
      expect(namesOf(p2.json)).toEqual(['c', 'd']);
      const m2 = metaOf(p2.json);
      expect(m2).toMatchObject({ remainingItemCount: 1, continue: expect.any(String), resourceVersion: m1['resourceVersion'] });
      const p3 = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?limit=2&continue=${encodeURIComponent(m2['continue'] as string)}`);
      expect(namesOf(p3.json)).toEqual(['e']);
      expect(metaOf(p3.json)).toEqual({ resourceVersion: m1['resourceVersion'] });
      // A continue token can be used again: the same page comes back.
      const again = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?limit=2&continue=${encodeURIComponent(m1['continue'] as string)}`);
      expect(again.json).toEqual(p2.json);
      const fresh = await kubeRequest(ctx.kc, 'GET', cmPath(ns));
      expect(namesOf(fresh.json)).toEqual(['a', 'b', 'bb', 'c', 'd', 'e']);
    });

    it('omits remainingItemCount when a label selector filters the pages', async () => {
      const ns = await ctx.namespace('pagesel');
      await configMaps(ns, [
        ['a', { x: '1' }],
        ['b', { x: '1' }],
        ['c', { x: '1' }],
      ]);
      const p1 = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?limit=2&labelSelector=x%3D1`);
      expect(namesOf(p1.json)).toEqual(['a', 'b']);
      expect(metaOf(p1.json)['continue']).toEqual(expect.any(String));
      expect(metaOf(p1.json)['remainingItemCount']).toBeUndefined();
    });

    it('answers a metadata-only LIST with a PartialObjectMetadataList of items without data', async () => {
      const ns = await ctx.namespace('metalist');
      await configMaps(ns, [
        ['a', { l: '1' }],
        ['b', {}],
      ]);
      const r = await kubeRequest(ctx.kc, 'GET', cmPath(ns), { accept: ACCEPT_META_LIST });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.json).toMatchObject({
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { resourceVersion: expect.any(String) },
      });
      const items = r.json['items'] as Json[];
      expect(items).toHaveLength(2);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
        expect(item).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
        expect(metaOf(item)['managedFields']).toEqual([expect.objectContaining({ manager: 'protean-conformance' })]);
      }
      expect(metaOf(items[0] as Json)['labels']).toEqual({ l: '1' });
    });

    it('answers a metadata-only GET with a PartialObjectMetadata without data', async () => {
      const ns = await ctx.namespace('metaget');
      await configMaps(ns, [['a', {}]]);
      const r = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'a'), { accept: ACCEPT_META });
      expect(Object.keys(r.json).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(r.json).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a', namespace: ns } });
      expect(metaOf(r.json)['managedFields']).toEqual([expect.objectContaining({ manager: 'protean-conformance' })]);
    });
  });
}
