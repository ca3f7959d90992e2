import { describe, expect, it } from '@jest/globals';
import { ACCEPT_META, cmPath, rvOf } from './fixtures.js';
import { KubeWatch, kubeRequest, type Json, type WatchEventLine } from '@protean/envtest';
import { LogRecorder, waitFor } from '@protean/core/testing';
import type { InformerCache } from '@protean/core';
import { KubernetesInformerSource, runInformer } from '@protean/watch-manager';
import type { SuiteContext } from './SuiteContext.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const FALLBACK_LOG = 'does not serve streaming lists';

/** Runs a metadata-only informer of the ConfigMaps of `ns` until `body` is done. */
async function withInformer(
  ctx: SuiteContext,
  ns: string,
  logs: LogRecorder,
  body: (informer: InformerCache) => Promise<void>,
): Promise<void> {
  const source = new KubernetesInformerSource({ kubeConfig: ctx.kc, namespace: ns, logger: logs.logger, streamingList: 'auto' });
  const abort = new AbortController();
  const informer = runInformer(source.createListWatch(CONFIGMAPS), {}, abort.signal);
  try {
    await waitFor(() => informer.hasSynced(), { message: 'the informer to sync', timeoutMs: 30_000 });
    await body(informer);
  } finally {
    abort.abort();
  }
}

/** The query of a streaming list (client-go's WatchList) without resourceVersion. */
const STREAM = 'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
const END = 'k8s.io/initial-events-end';

function summary(events: WatchEventLine[]): string[] {
  return events.map((e) => `${e.type} ${String((e.object.metadata ?? {})['name'])}`);
}

function isEnd(e: WatchEventLine): boolean {
  return e.type === 'BOOKMARK' && ((e.object.metadata ?? {})['annotations'] as Json | undefined)?.[END] === 'true';
}

/** The 422 `ListOptions` Status of a refused watch, as kube-apiserver words it. */
function listOptionsInvalid(causes: Array<{ field: string; reason: string; message: string }>): Json {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `ListOptions.meta.k8s.io "" is invalid: ${causes.length > 1 ? `[${text}]` : text}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind: 'ListOptions', causes },
    code: 422,
  };
}

/**
 * Streaming lists (`sendInitialEvents=true`, the WatchList feature, on by
 * default in kube-apiserver 1.36 with or without the watch cache): the
 * parameter rules, the state they stream, the end bookmark, the watch that
 * follows on the same stream.
 */
export function watchListTests(ctx: SuiteContext): void {
  async function create(ns: string, name: string): Promise<Json> {
    return (await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name } } })).json;
  }

  async function withWatch(path: string, body: (w: KubeWatch) => Promise<void>): Promise<void> {
    const w = await KubeWatch.open(ctx.kc, path, ACCEPT_META);
    try {
      await body(w);
    } finally {
      w.close();
    }
  }

  describe('streaming lists (sendInitialEvents)', () => {
    it('streams the current state from an older resourceVersion (not its history), ends it with the annotated bookmark, then watches on', async () => {
      const ns = await ctx.namespace('wl-state');
      const a = await create(ns, 'a');
      const b = await create(ns, 'b');
      await kubeRequest(ctx.kc, 'DELETE', cmPath(ns, 'a'));
      const c = await create(ns, 'c');
      await withWatch(`${cmPath(ns)}?${STREAM}&resourceVersion=${rvOf(a)}`, async (w) => {
        expect(w.status).toBe(200);
        const end = await w.waitForEvent(isEnd, 'the initial-events-end bookmark');
        expect(summary(w.events)).toEqual(['ADDED b', 'ADDED c', 'BOOKMARK undefined']);
        expect(w.events.slice(0, 2).map((e) => rvOf(e.object))).toEqual([rvOf(b), rvOf(c)]);
        expect(end.object).toEqual({
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { resourceVersion: expect.stringMatching(/^\d+$/), annotations: { [END]: 'true' } },
        });
        expect(rvOf(end.object)).toBeGreaterThanOrEqual(rvOf(c));

        await create(ns, 'd');
        await kubeRequest(ctx.kc, 'DELETE', cmPath(ns, 'b'));
        // The watch goes on after the end bookmark; a periodic bookmark may come between its events at any time.
        const changes = (): string[] => summary(w.events.slice(3).filter((e) => e.type !== 'BOOKMARK'));
        await waitFor(() => changes().length >= 2, { message: 'the two changes after the initial events' });
        expect(changes()).toEqual(['ADDED d', 'DELETED b']);
      });
    });

    it('sends only the end bookmark for an empty collection', async () => {
      const ns = await ctx.namespace('wl-empty');
      await withWatch(`${cmPath(ns)}?${STREAM}`, async (w) => {
        await w.waitForEvent(isEnd, 'the initial-events-end bookmark');
        expect(summary(w.events)).toEqual(['BOOKMARK undefined']);
      });
    });

    it('sends the initial events but no bookmark without allowWatchBookmarks', async () => {
      const ns = await ctx.namespace('wl-nobm');
      await create(ns, 'a');
      const path = `${cmPath(ns)}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2`;
      await withWatch(path, async (w) => {
        expect(await w.waitForOutcome(15_000)).toBe('end');
        expect(summary(w.events)).toEqual(['ADDED a']);
      });
    });

    it('answers 422 for sendInitialEvents without resourceVersionMatch=NotOlderThan, and for resourceVersionMatch without sendInitialEvents', async () => {
      const ns = await ctx.namespace('wl-invalid');
      const requires = {
        field: 'resourceVersionMatch',
        reason: 'FieldValueForbidden',
        message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      };
      const noMatch = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`);
      expect([noMatch.status, noMatch.json]).toEqual([422, listOptionsInvalid([requires])]);

      const exact = await kubeRequest(
        ctx.kc,
        'GET',
        `${cmPath(ns)}?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1`,
      );
      expect([exact.status, exact.json]).toEqual([
        422,
        listOptionsInvalid([
          requires,
          {
            field: 'resourceVersionMatch',
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: "Exact": supported values: "NotOlderThan"',
          },
        ]),
      ]);

      const matchOnly = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=1`);
      expect([matchOnly.status, matchOnly.json]).toEqual([
        422,
        listOptionsInvalid([
          {
            field: 'resourceVersionMatch',
            reason: 'FieldValueForbidden',
            message: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          },
        ]),
      ]);
    });

    it('a KubernetesInformer syncs through a streaming list and watches on, without falling back', async () => {
      const ns = await ctx.namespace('wl-informer');
      for (const name of ['a', 'b']) await create(ns, name);
      const logs = new LogRecorder('warn');
      await withInformer(ctx, ns, logs, async (informer) => {
        expect(
          informer
            .list()
            .map((o) => o.metadata.name)
            .sort(),
        ).toEqual(['a', 'b']);
        expect(informer.health()).toMatchObject({ synced: true, listMode: 'streaming', relists: 0, failing: undefined });
        await create(ns, 'c');
        await waitFor(() => informer.get({ namespace: ns, name: 'c' }) !== undefined, {
          message: 'the watch to deliver c',
          timeoutMs: 15_000,
        });
      });
      expect(logs.find(FALLBACK_LOG)).toEqual([]);
    });

    it('ends a stream from a resourceVersion the server has not reached with an in-stream Timeout error', async () => {
      const ns = await ctx.namespace('wl-future');
      const a = await create(ns, 'a');
      const future = rvOf(a) + 1_000_000;
      await withWatch(`${cmPath(ns)}?${STREAM}&resourceVersion=${future}`, async (w) => {
        expect(w.status).toBe(200);
        expect(await w.waitForOutcome(15_000)).toBe('end');
        expect(w.events).toHaveLength(1);
        expect(w.events[0]).toMatchObject({
          type: 'ERROR',
          object: {
            kind: 'Status',
            status: 'Failure',
            reason: 'Timeout',
            code: 504,
            message: expect.stringMatching(new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`)),
          },
        });
      });
    });
  });
}

/** A server without the WatchList feature (kube-apiserver `--feature-gates=WatchList=false`). */
export function watchListDisabledTests(ctx: SuiteContext): void {
  describe('streaming lists with the WatchList feature off', () => {
    it('answers a streaming list 422 naming the feature gate, and serves LIST and plain watches as usual', async () => {
      const ns = await ctx.namespace('wl-off');
      await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'a' } } });
      const refused = await kubeRequest(ctx.kc, 'GET', `${cmPath(ns)}?${STREAM}`, { accept: ACCEPT_META });
      expect([refused.status, refused.json]).toEqual([
        422,
        listOptionsInvalid([
          {
            field: 'sendInitialEvents',
            reason: 'FieldValueForbidden',
            message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          },
        ]),
      ]);
      const list = await kubeRequest(ctx.kc, 'GET', cmPath(ns));
      expect(list.status).toBe(200);
      const w = await KubeWatch.open(ctx.kc, `${cmPath(ns)}?watch=1`);
      try {
        await w.waitForEvents(1);
        expect(summary(w.events)).toEqual(['ADDED a']);
      } finally {
        w.close();
      }
    });

    it('a KubernetesInformer falls back to paginated LIST at once, warns once, and watches on', async () => {
      const ns = await ctx.namespace('wl-off-informer');
      await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'a' } } });
      const logs = new LogRecorder('warn');
      await withInformer(ctx, ns, logs, async (informer) => {
        expect(informer.list().map((o) => o.metadata.name)).toEqual(['a']);
        expect(informer.health()).toMatchObject({ synced: true, listMode: 'paginated', failing: undefined });
        await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'b' } } });
        await waitFor(() => informer.get({ namespace: ns, name: 'b' }) !== undefined, {
          message: 'the watch to deliver b',
          timeoutMs: 15_000,
        });
      });
      expect(logs.find(FALLBACK_LOG)).toHaveLength(1);
      expect(String(logs.find(FALLBACK_LOG)[0]!['err'])).toContain('WatchList feature gate');
    });
  });
}
