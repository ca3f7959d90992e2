import { describe, expect, it } from '@jest/globals';
import { cmPath, metaOf, rvOf } from './fixtures.js';
import { KubeWatch, kubeRequest } from '@protean/envtest';
import type { SuiteContext } from './SuiteContext.js';

const EXPIRED_WATCH_MESSAGE = /^(too old resource version: \d+ \(\d+\)|The resourceVersion for the provided watch is too old\.)$/;

/** 410 Expired after history is compacted: watches, Exact LISTs and continue tokens. */
export function expiryTests(ctx: SuiteContext): void {
  describe('410 Expired after compaction', () => {
    it('answers a watch, an Exact LIST and a continue token from before forceExpire with 410 Expired', async () => {
      const ns = await ctx.namespace('expire');
      const old = (await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'a' } } })).json;
      // At least two writes after the expiring resourceVersion (see tools/kube-apiserver/README.md).
      for (const name of ['b', 'c']) await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name } } });
      const page = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?limit=1`);
      const token = metaOf(page.json)['continue'] as string;
      // A write after the page, so the compaction is strictly past the token's snapshot.
      await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'd' } } });
      await ctx.cluster.forceExpire();

      const w = await KubeWatch.open(ctx.kc, `${cmPath(ns)}?watch=1&resourceVersion=${rvOf(old)}`);
      try {
        expect(w.status).toBe(200);
        const [ev] = await w.waitForEvents(1);
        expect(ev).toEqual({
          type: 'ERROR',
          // The first message is the watch cache's, the second etcd's (watch cache off).
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: expect.stringMatching(EXPIRED_WATCH_MESSAGE),
            reason: 'Expired',
            code: 410,
          },
        });
        expect(await w.waitForOutcome()).toBe('end');
        expect(w.events).toHaveLength(1);
      } finally {
        w.close();
      }

      const exact = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?resourceVersion=${rvOf(old)}&resourceVersionMatch=Exact`);
      expect(exact.status).toBe(410);
      expect(exact.json).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });

      const cont = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?limit=1&continue=${encodeURIComponent(token)}`);
      expect(cont.status).toBe(410);
      expect(cont.json).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410, metadata: { continue: expect.any(String) } });
      expect(String(cont.json['message'])).toContain('The provided continue parameter is too old to display a consistent list result.');
      // The token in the 410 continues the list from the latest state.
      const rest = await kubeRequest(
        ctx.kc,
        'GET',
        `${cmPath(ns)}?limit=5&continue=${encodeURIComponent(metaOf(cont.json)['continue'] as string)}`,
      );
      expect(rest.status).toBe(200);
      expect(((rest.json['items'] ?? []) as unknown[]).length).toBe(3);
    });
  });
}
