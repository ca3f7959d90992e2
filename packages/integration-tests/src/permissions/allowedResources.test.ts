import { afterEach, describe, expect, it } from '@jest/globals';
import { ParentSyncError, type GroupVersionResource } from '@protean/core';
import { WatchUnavailableError } from '@protean/coordinator';
import { createTestController, ObserverRecorder, type TestController } from '@protean/testing';
import { ResourceNotAllowedError } from '@protean/watch-manager';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const secrets: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
const deployments: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };

/** The cause chain of an error, outermost first. */
function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err; e !== undefined && e !== null; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

describe('allowedResources bounds what instances may make the controller watch', () => {
  let t: TestController | undefined;
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
  });

  it("fails the pass of an instance that declares a watch outside the list, with the refusal as its error's cause, starting no informer", async () => {
    const observer = new ObserverRecorder();
    t = createTestController({
      logFailures: false,
      observer,
      config: { queueMaxRetries: 0 },
      watchManager: { allowedResources: ['demo.protean.dev/*/*', '/v1/configmaps'] },
    });
    t.source.add(webapps, { name: 'shop', namespace: 'demo' });
    t.source.add(webapps, { name: 'blog', namespace: 'demo' });
    await t.start();
    await t.register(webapps, async (req, ctx) => {
      await ctx.watcher.watch({ nodeId: 'env', gvr: configmaps, namespace: req.namespace, name: `${req.name}-env` });
      // The blog instance also declares a Secret: outside the list.
      if (req.name === 'blog') await ctx.watcher.watch({ nodeId: 'creds', gvr: secrets, namespace: req.namespace, name: 'creds' });
    });
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes().sort()).toEqual(['dropped', 'success']);
    expect(observer.handlerErrors).toHaveLength(1);
    const err = observer.handlerErrors[0]?.err;
    expect(err).toBeInstanceOf(WatchUnavailableError);
    expect((err as Error).message).toContain('demo/blog');
    const refusal = causes(err).find((e) => e instanceof ResourceNotAllowedError);
    expect(refusal).toMatchObject({ reason: 'NotAllowed', gvr: secrets, allowedResources: ['demo.protean.dev/*/*', '/v1/configmaps'] });
    expect((err as Error).message).toContain('/v1/secrets matches none of allowedResources ["demo.protean.dev/*/*","/v1/configmaps"]');
    expect(t.source.informers().map((i) => i.gvr.resource)).toEqual(['webapps', 'configmaps']);
  });

  it('refuses to register a parent outside the list with a ParentSyncError caused by the refusal', async () => {
    t = createTestController({ watchManager: { allowedResources: ['demo.protean.dev/*/*'] } });
    await t.start();
    const err = await t.register(deployments, async () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParentSyncError);
    expect(causes(err)[1]).toBeInstanceOf(ResourceNotAllowedError);
    expect((err as Error).message).toContain(
      'cannot register parent apps/v1/deployments: its informer did not sync: watch of apps/v1/deployments: refused',
    );
    expect(t.source.informers()).toEqual([]);
  });
});
