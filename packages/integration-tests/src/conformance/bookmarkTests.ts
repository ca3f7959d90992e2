import { describe, expect, it } from '@jest/globals';
import { ACCEPT_META, cmPath, rvOf } from './fixtures.js';
import { KubeWatch, kubeRequest } from '@protean/envtest';
import type { SuiteContext } from './SuiteContext.js';

/** BOOKMARK events (served by a watch cache on the real server). */
export function bookmarkTests(ctx: SuiteContext): void {
  describe('bookmarks', () => {
    for (const [what, accept, kind, apiVersion] of [
      ['a full watch', undefined, 'ConfigMap', 'v1'],
      ['a metadata-only watch', ACCEPT_META, 'PartialObjectMetadata', 'meta.k8s.io/v1'],
    ] as const) {
      it(`sends ${what} a BOOKMARK (kind, apiVersion, resourceVersion only) past a change elsewhere before timeoutSeconds ends it`, async () => {
        const watched = await ctx.namespace('bookmark');
        const elsewhere = await ctx.namespace('elsewhere');
        const start = (await kubeRequest(ctx.kc, 'POST', cmPath(watched), { body: { metadata: { name: 'a' } } })).json;
        const w = await KubeWatch.open(
          ctx.kc,
          `${cmPath(watched)}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${rvOf(start)}`,
          accept,
        );
        try {
          const other = (await kubeRequest(ctx.kc, 'POST', cmPath(elsewhere), { body: { metadata: { name: 'b' } } })).json;
          expect(await w.waitForOutcome(15_000)).toBe('end');
          expect(w.events.length).toBeGreaterThan(0);
          for (const ev of w.events) {
            expect(ev).toEqual({
              type: 'BOOKMARK',
              object: { kind, apiVersion, metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } },
            });
          }
          expect(rvOf(w.events[w.events.length - 1]!.object)).toBeGreaterThanOrEqual(rvOf(other));
        } finally {
          w.close();
        }
      });
    }

    it('sends a BOOKMARK for a watch whose resource did not change since it started: real no, in-memory yes', async () => {
      const ns = await ctx.namespace('idle');
      const start = (await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'a' } } })).json;
      const w = await KubeWatch.open(
        ctx.kc,
        `${cmPath(ns)}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${rvOf(start)}`,
      );
      try {
        expect(await w.waitForOutcome(15_000)).toBe('end');
        const expected = ctx.deliberate(
          { 'kube-apiserver': [], 'in-memory': ['BOOKMARK'] },
          'the fake bookmarks the global resourceVersion without waiting for progress; a bookmark at a resourceVersion the client has is a no-op',
        );
        expect(w.events.map((e) => e.type)).toEqual(expected);
      } finally {
        w.close();
      }
    });

    it('streams the current objects then a BOOKMARK annotated k8s.io/initial-events-end for sendInitialEvents=true', async () => {
      const ns = await ctx.namespace('watchlist');
      for (const name of ['a', 'b']) await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name } } });
      const w = await KubeWatch.open(
        ctx.kc,
        `${cmPath(ns)}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
        ACCEPT_META,
      );
      try {
        await w.waitForEvent((e) => e.type === 'BOOKMARK', 'the initial-events-end bookmark');
        expect(w.events.map((e) => `${e.type} ${String(e.object.metadata?.['name'])}`)).toEqual([
          'ADDED a',
          'ADDED b',
          'BOOKMARK undefined',
        ]);
        expect(w.events[2]?.object).toEqual({
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { resourceVersion: expect.stringMatching(/^\d+$/), annotations: { 'k8s.io/initial-events-end': 'true' } },
        });
        expect(rvOf(w.events[2]!.object)).toBeGreaterThanOrEqual(rvOf(w.events[1]!.object));
      } finally {
        w.close();
      }
    });

    it('sends no BOOKMARK without allowWatchBookmarks', async () => {
      const ns = await ctx.namespace('nobookmark');
      const start = (await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'a' } } })).json;
      const w = await KubeWatch.open(ctx.kc, `${cmPath(ns)}?watch=1&timeoutSeconds=3&resourceVersion=${rvOf(start)}`);
      try {
        await kubeRequest(ctx.kc, 'POST', cmPath(await ctx.namespace('elsewhere')), { body: { metadata: { name: 'b' } } });
        expect(await w.waitForOutcome(15_000)).toBe('end');
        expect(w.events).toEqual([]);
      } finally {
        w.close();
      }
    });
  });
}
