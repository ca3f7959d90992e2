import { afterEach, describe, expect, it } from '@jest/globals';
import type { CachedObject, GroupVersionResource } from '@protean/core';
import { createTestController, type TestController } from './createTestController.js';

/*
 * What a handler reads from the controller's caches is the cache's own: in a test, changing it fails at the line
 * that does, instead of changing what later passes and explain() see.
 */

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

describe('createTestController: cached objects are frozen', () => {
  let t: TestController | undefined;
  afterEach(async () => {
    await t?.dispose();
  });

  it('fails a pass that changes an object ctx.get returned (full objects) or one of the metadata cache, at that line', async () => {
    t = createTestController({ logFailures: false });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-env', namespace: 'ns', labels: { app: 'a' }, content: { data: { k: 'v' } } });
    await t.start();
    const errors: unknown[] = [];
    await t.register(
      webapps,
      async (req, ctx) => {
        const cm = (await ctx.get<CachedObject & { data: Record<string, string> }>(configmaps, 'ns', 'a-env'))!;
        try {
          cm.data['k'] = 'changed';
        } catch (err) {
          errors.push(err);
        }
        try {
          const parent = t!.controller.informer(webapps)!.get(req)!;
          parent.metadata.labels!['touched'] = 'yes';
        } catch (err) {
          errors.push(err);
        }
      },
      { cache: [configmaps] },
    );
    await t.waitFor(() => errors.length === 2);
    expect(errors.map((e) => (e as Error).name)).toEqual(['TypeError', 'TypeError']);
    expect((errors[0] as Error).message).toMatch(/read only|read-only|not extensible/);
    // The cache is as the source delivered it.
    expect((t.controller.informer(configmaps)!.get({ namespace: 'ns', name: 'a-env' }) as CachedObject)['data']).toEqual({ k: 'v' });
  });
});
