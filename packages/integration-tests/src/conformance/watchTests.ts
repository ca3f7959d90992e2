import { describe, expect, it } from '@jest/globals';
import { ACCEPT_META, cmPath, metaOf, rvOf } from './fixtures.js';
import { KubeWatch, kubeRequest, type Json, type WatchEventLine } from '@protean/envtest';
import type { SuiteContext } from './SuiteContext.js';

function summary(events: WatchEventLine[]): string[] {
  return events.map((e) => `${e.type} ${String((e.object.metadata ?? {})['name'])}`);
}

/** WATCH: replay from a resourceVersion, initial state, selectors, metadata-only, timeoutSeconds. */
export function watchTests(ctx: SuiteContext): void {
  async function create(ns: string, name: string, labels: Record<string, string> = {}): Promise<Json> {
    return (await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name, labels }, data: { payload: name } } })).json;
  }

  async function withWatch(path: string, accept: string | undefined, body: (w: KubeWatch) => Promise<void>): Promise<void> {
    const w = await KubeWatch.open(ctx.kc, path, accept);
    try {
      await body(w);
    } finally {
      w.close();
    }
  }

  describe('WATCH', () => {
    it('replays only the changes after the given resourceVersion, in order, then streams live ones', async () => {
      const ns = await ctx.namespace('replay');
      const a = await create(ns, 'a');
      await create(ns, 'b');
      const a2 = await kubeRequest(ctx.kc, 'PUT', cmPath(ns, 'a'), { body: { ...a, data: { payload: 'changed' } } });
      const delB = await kubeRequest(ctx.kc, 'DELETE', cmPath(ns, 'b'));
      expect(delB.status).toBe(200);
      await withWatch(`${cmPath(ns)}?watch=1&resourceVersion=${rvOf(a)}`, undefined, async (w) => {
        expect(w.status).toBe(200);
        expect(w.headers['content-type']).toMatch(/^application\/json/);
        await w.waitForEvents(3);
        expect(summary(w.events)).toEqual(['ADDED b', 'MODIFIED a', 'DELETED b']);
        expect(w.events[1]?.object).toMatchObject({
          kind: 'ConfigMap',
          apiVersion: 'v1',
          data: { payload: 'changed' },
          metadata: { resourceVersion: metaOf(a2.json)['resourceVersion'] },
        });
        const rvs = w.events.map((e) => rvOf(e.object));
        expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
        await create(ns, 'c');
        await w.waitForEvents(4);
        expect(summary(w.events)[3]).toBe('ADDED c');
      });
    });

    it('starts a watch without resourceVersion with the current objects as ADDED', async () => {
      const ns = await ctx.namespace('initial');
      await create(ns, 'a');
      await create(ns, 'b');
      await withWatch(`${cmPath(ns)}?watch=true`, undefined, async (w) => {
        await w.waitForEvents(2);
        expect(summary(w.events).sort()).toEqual(['ADDED a', 'ADDED b']);
        await kubeRequest(ctx.kc, 'DELETE', cmPath(ns, 'a'));
        await w.waitForEvents(3);
        expect(summary(w.events)[2]).toBe('DELETED a');
      });
    });

    it('applies a label selector: leaving it arrives as DELETED (old content, new resourceVersion), entering as ADDED', async () => {
      const ns = await ctx.namespace('watchsel');
      const a = await create(ns, 'a', { app: 'x' });
      await withWatch(`${cmPath(ns)}?watch=1&labelSelector=app%3Dx&resourceVersion=${rvOf(a)}`, undefined, async (w) => {
        const left = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'a'), {
          body: { metadata: { labels: { app: 'y' } } },
          contentType: 'application/merge-patch+json',
        });
        await create(ns, 'other', { app: 'y' });
        await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'a'), {
          body: { metadata: { labels: { app: 'x' } } },
          contentType: 'application/merge-patch+json',
        });
        await w.waitForEvents(2);
        expect(summary(w.events)).toEqual(['DELETED a', 'ADDED a']);
        expect(metaOf(w.events[0]!.object)).toMatchObject({ labels: { app: 'x' }, resourceVersion: metaOf(left.json)['resourceVersion'] });
      });
    });

    it('streams PartialObjectMetadata objects without data for a metadata-only watch', async () => {
      const ns = await ctx.namespace('metawatch');
      const a = await create(ns, 'a');
      await withWatch(`${cmPath(ns)}?watch=1&resourceVersion=${rvOf(a)}`, ACCEPT_META, async (w) => {
        await create(ns, 'b', { l: '1' });
        const [ev] = await w.waitForEvents(1);
        expect(ev?.type).toBe('ADDED');
        expect(Object.keys(ev?.object ?? {}).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
        expect(ev?.object).toMatchObject({
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { name: 'b', labels: { l: '1' } },
        });
        expect(metaOf(ev!.object)['managedFields']).toEqual([expect.objectContaining({ manager: 'protean-conformance' })]);
      });
    });

    it('ends the stream cleanly at timeoutSeconds', async () => {
      const ns = await ctx.namespace('timeout');
      const a = await create(ns, 'a');
      await withWatch(`${cmPath(ns)}?watch=1&timeoutSeconds=1&resourceVersion=${rvOf(a)}`, undefined, async (w) => {
        expect(await w.waitForOutcome(10_000)).toBe('end');
        expect(w.events).toEqual([]);
      });
    });
  });
}
