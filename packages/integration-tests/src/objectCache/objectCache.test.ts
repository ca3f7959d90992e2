import { afterEach, describe, expect, it } from '@jest/globals';
import {
  noteWrite,
  ObjectNotCachedError,
  requeue,
  type CacheRequest,
  type CachedObject,
  type GroupVersionResource,
  type ReconcileContext,
} from '@protean/core';
import { createTestController, Deferred, ObserverRecorder, type TestController } from '@protean/testing';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const databases: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'databases' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

interface ConfigMap extends CachedObject {
  data?: Record<string, string>;
}

let t: TestController;

afterEach(async () => {
  await t.dispose();
});

/** Runs `body` in the first pass of `ns/a` (a webapp caching webapps and configmaps) and resolves with what it returns. */
async function inPass<R>(
  body: (ctx: ReconcileContext) => Promise<R>,
  cache: readonly (GroupVersionResource | CacheRequest)[] = [webapps, configmaps],
): Promise<R> {
  const result = new Deferred<R>();
  await t.register(
    webapps,
    (_req, ctx) =>
      body(ctx).then(
        (r) => result.resolve(r),
        (err: unknown) => result.reject(err),
      ),
    { cache },
  );
  return result.promise;
}

describe('the object cache (register with cache)', () => {
  it('serves full objects of a cached GVR through ctx.get and ctx.list, without the last-applied annotation', async () => {
    t = createTestController();
    t.source.add(webapps, { name: 'a', namespace: 'ns', content: { spec: { replicas: 2 } } });
    t.source.add(configmaps, {
      name: 'a-env',
      namespace: 'ns',
      labels: { app: 'a' },
      annotations: { [LAST_APPLIED]: '{}', keep: 'yes' },
      content: { data: { k: 'v' } },
    });
    t.source.add(configmaps, { name: 'b-env', namespace: 'ns', labels: { app: 'b' }, content: { data: { k: 'w' } } });
    t.source.add(configmaps, { name: 'a-env', namespace: 'other', labels: { app: 'a' }, content: { data: { k: 'x' } } });
    await t.start();

    const { app, labelled, everywhere } = await inPass(async (ctx) => ({
      app: await ctx.get(webapps, 'ns', 'a'),
      labelled: await ctx.list<ConfigMap>(configmaps, { namespace: 'ns', labelSelector: 'app=a' }),
      everywhere: await ctx.list<ConfigMap>(configmaps, { labelSelector: 'app=a' }),
    }));

    expect(app?.['spec']).toEqual({ replicas: 2 });
    expect(labelled.map((cm) => [cm.metadata.name, cm.data])).toEqual([['a-env', { k: 'v' }]]);
    expect(labelled[0]!.metadata.annotations).toEqual({ keep: 'yes' });
    expect(everywhere.map((cm) => `${cm.metadata.namespace}/${cm.metadata.name}`).sort()).toEqual(['ns/a-env', 'other/a-env']);
    expect(t.source.informer(configmaps)?.holdsObjects).toBe(true);
  });

  it('rejects reads of a GVR no registration caches with an ObjectNotCachedError that says how to opt in', async () => {
    t = createTestController();
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    await t.start();

    const err = await inPass((ctx) => ctx.get(configmaps, 'ns', 'a-env').catch((e: unknown) => e), [webapps]);

    expect(err).toBeInstanceOf(ObjectNotCachedError);
    expect((err as Error).message).toContain("register the parent with { cache: [{ group: '', version: 'v1', resource: 'configmaps' }] }");
  });

  it('switches a running metadata-only informer to full objects while a registration caches it, and back when it leaves', async () => {
    t = createTestController();
    t.source.add(webapps, { name: 'a', namespace: 'ns', content: { spec: { replicas: 2 } } });
    await t.start();
    let webappPasses = 0;
    await t.register(webapps, async () => void webappPasses++);
    await t.waitFor(() => webappPasses === 1);
    const informer = t.controller.informer(webapps)!;
    expect(informer.holdsObjects?.()).toBe(false);
    expect(informer.get({ namespace: 'ns', name: 'a' })).not.toHaveProperty('spec');

    await t.register(databases, async () => undefined, { cache: [webapps] });

    expect(t.controller.informer(webapps)).toBe(informer); // the same informer, with a new list/watch under it
    expect(informer.holdsObjects?.()).toBe(true);
    expect(informer.get({ namespace: 'ns', name: 'a' })).toHaveProperty('spec', { replicas: 2 });
    const [first, objects] = t.source.informers(webapps);
    expect([first!.isStopped(), objects!.holdsObjects]).toEqual([true, true]);

    await t.controller.deregister(databases);

    expect(informer.holdsObjects?.()).toBe(false);
    expect(informer.get({ namespace: 'ns', name: 'a' })).not.toHaveProperty('spec');
    expect(t.source.informers(webapps).map((lw) => [lw.isStopped(), lw.holdsObjects])).toEqual([
      [true, false],
      [true, true],
      [false, false],
    ]);
    // Unchanged objects are swapped silently: the parent saw no event of either switch.
    expect(webappPasses).toBe(1);
  });

  it('a read after a write waits for the cache to reach the written version, in the same pass and the next', async () => {
    t = createTestController();
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-env', namespace: 'ns', resourceVersion: '10', content: { data: { k: 'old' } } });
    await t.start();
    const refetches: string[] = [];
    const reading = new Deferred<void>();
    const seen: (string | undefined)[] = [];
    let pass = 0;
    await t.register(
      webapps,
      async (_req, ctx) => {
        if (++pass === 1) {
          // What @protean/client reports after it wrote resourceVersion 20 (the informer has not seen it yet).
          noteWrite(ctx.signal, write('a-env', '20', refetches));
          throw requeue.needed(new Error('read it in the next pass'));
        }
        const pending = ctx.get<ConfigMap>(configmaps, 'ns', 'a-env');
        reading.resolve();
        seen.push((await pending)?.data?.['k']);
      },
      { cache: [configmaps] },
    );
    await reading.promise;
    expect(seen).toEqual([]); // still waiting: the cache holds version 10

    t.source.update(configmaps, { name: 'a-env', namespace: 'ns', resourceVersion: '20', content: { data: { k: 'new' } } });

    await t.waitFor(() => seen.length === 1);
    expect(seen).toEqual(['new']);
    expect(refetches).toEqual([]);
  });

  it('reads from the server once the bound has passed, and counts each such read as a fallback', async () => {
    const observer = new ObserverRecorder();
    t = createTestController({ observer, config: { readYourWritesTimeoutMs: 20 } });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-env', namespace: 'ns', resourceVersion: '10', content: { data: { k: 'old' } } });
    await t.start();
    const refetches: string[] = [];

    const [first, second] = await inPass(async (ctx) => {
      noteWrite(ctx.signal, write('a-env', '20', refetches));
      return [await ctx.get<ConfigMap>(configmaps, 'ns', 'a-env'), await ctx.get<ConfigMap>(configmaps, 'ns', 'a-env')];
    });

    expect([first?.metadata.resourceVersion, second?.metadata.resourceVersion]).toEqual(['20', '20']);
    expect(refetches).toEqual(['a-env', 'a-env']);
    expect(observer.cacheReadFallbacks).toEqual([configmaps, configmaps]);
  });

  it('never returns an object the handler deleted, even while the cache still holds it', async () => {
    t = createTestController();
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    const cm = t.source.add(configmaps, { name: 'a-env', namespace: 'ns', labels: { app: 'a' } });
    await t.start();
    const reading = new Deferred<void>();

    const result = inPass(async (ctx) => {
      noteWrite(ctx.signal, {
        gvr: configmaps,
        namespace: 'ns',
        name: 'a-env',
        deleted: true,
        uid: cm.metadata.uid,
        refetch: async () => undefined,
      });
      const listed = ctx.list(configmaps, { namespace: 'ns', labelSelector: 'app=a' });
      reading.resolve();
      return listed;
    });
    await reading.promise;
    t.source.delete(configmaps, { namespace: 'ns', name: 'a-env' });

    expect(await result).toEqual([]);
  });

  it('lists an object the handler created that the cache has not seen yet, read from the server after the bound', async () => {
    t = createTestController({ config: { readYourWritesTimeoutMs: 20 } });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-env', namespace: 'ns', labels: { app: 'a' } });
    await t.start();

    const listed = await inPass(async (ctx) => {
      noteWrite(ctx.signal, write('a-extra', '30', []));
      return ctx.list(configmaps, { namespace: 'ns', labelSelector: 'app=a' });
    });

    expect(listed.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion ?? ''}`).sort()).toEqual(['a-env@2', 'a-extra@30']);
  });
  it('settles a write when someone else deletes the object after it: a read right after neither waits nor goes to the server', async () => {
    const observer = new ObserverRecorder();
    // A read that waited for the cache would wait a minute and outlive the test: it must not wait at all.
    t = createTestController({ observer, config: { readYourWritesTimeoutMs: 60_000 } });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    const cm = t.source.add(configmaps, { name: 'a-env', namespace: 'ns' });
    await t.start();
    const refetches: string[] = [];

    const read = await inPass(async (ctx) => {
      // The pass wrote it (the informer has not seen that version), then someone else deleted it.
      noteWrite(ctx.signal, write('a-env', String(Number(cm.metadata.resourceVersion) + 1), refetches));
      t.source.delete(configmaps, { namespace: 'ns', name: 'a-env' });
      await t.waitFor(() => t.controller.informer(configmaps)?.get({ namespace: 'ns', name: 'a-env' }) === undefined);
      return ctx.get(configmaps, 'ns', 'a-env');
    });

    expect(read).toBeUndefined();
    expect(refetches).toEqual([]);
    expect(observer.cacheReadFallbacks).toEqual([]);
  });

  it('trims and transforms an object read from the server as the informer does its own', async () => {
    t = createTestController({ config: { readYourWritesTimeoutMs: 20 } });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-env', namespace: 'ns', resourceVersion: '10', content: { data: { k: 'old', secret: 's' } } });
    await t.start();
    const dropSecret = (obj: CachedObject): CachedObject => {
      delete (obj as ConfigMap).data?.['secret'];
      return obj;
    };

    const [cached, fetched] = await inPass<(ConfigMap | undefined)[]>(
      async (ctx) => {
        const before = await ctx.get<ConfigMap>(configmaps, 'ns', 'a-env');
        noteWrite(ctx.signal, {
          gvr: configmaps,
          namespace: 'ns',
          name: 'a-env',
          resourceVersion: '20',
          refetch: async (): Promise<CachedObject> => ({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: 'a-env',
              namespace: 'ns',
              resourceVersion: '20',
              annotations: { [LAST_APPLIED]: '{}', keep: 'yes' },
              managedFields: [{ manager: 'kubectl' }],
            } as CachedObject['metadata'],
            data: { k: 'new', secret: 's' },
          }),
        });
        return [before, await ctx.get<ConfigMap>(configmaps, 'ns', 'a-env')];
      },
      [webapps, { gvr: configmaps, transform: dropSecret }],
    );

    expect(cached?.data).toEqual({ k: 'old' });
    expect(fetched?.data).toEqual({ k: 'new' });
    expect(fetched?.metadata.annotations).toEqual({ keep: 'yes' });
    expect(fetched?.metadata).not.toHaveProperty('managedFields');
  });

  it('applies the transform of a parent registered again with another one', async () => {
    t = createTestController();
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    t.source.add(configmaps, { name: 'a-env', namespace: 'ns', content: { data: { k: 'v' } } });
    await t.start();
    const marking =
      (by: string) =>
      (obj: CachedObject): CachedObject => ({ ...obj, metadata: { ...obj.metadata, labels: { by } } });
    const seen: (string | undefined)[] = [];
    const handler = async (_req: unknown, ctx: ReconcileContext): Promise<void> => {
      seen.push((await ctx.get(configmaps, 'ns', 'a-env'))?.metadata.labels?.['by']);
    };
    await t.register(webapps, handler, { cache: [{ gvr: configmaps, transform: marking('first') }] });
    await t.waitFor(() => seen.length === 1);
    await t.register(webapps, handler, { cache: [{ gvr: configmaps, transform: marking('second') }] });
    await t.waitFor(() => seen.length === 2);
    expect(seen).toEqual(['first', 'second']);
  });
  it('lists by a secondary index (owner, built in, and one the registration declares), without a scan, with read-your-writes', async () => {
    t = createTestController({ config: { readYourWritesTimeoutMs: 20 } });
    const app = t.source.add(webapps, { name: 'a', namespace: 'ns' });
    const owned = { ownerReferences: [{ apiVersion: 'demo.protean.dev/v1', kind: 'WebApp', name: 'a', uid: app.metadata.uid! }] };
    t.source.add(configmaps, { name: 'a-env', namespace: 'ns', ...owned, content: { data: { secret: 's1' } } });
    t.source.add(configmaps, { name: 'a-more', namespace: 'other', ...owned, content: { data: { secret: 's2' } } });
    t.source.add(configmaps, { name: 'lone', namespace: 'ns', content: { data: { secret: 's1' } } });
    await t.start();
    const bySecret = (obj: CachedObject): string[] => [String((obj as ConfigMap).data?.['secret'])];

    const found = await inPass(
      async (ctx) => {
        const names = (objs: readonly CachedObject[]): string[] => objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
        // A write of lone that moves it to s2 (the cache has not seen it): the server's version counts, not the cache's.
        noteWrite(ctx.signal, {
          gvr: configmaps,
          namespace: 'ns',
          name: 'lone',
          resourceVersion: '99',
          refetch: async () => ({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'lone', namespace: 'ns', resourceVersion: '99' },
            data: { secret: 's2' },
          }),
        });
        return {
          byOwner: names(await ctx.list(configmaps, { index: 'owner', value: app.metadata.uid! })),
          byOwnerInNs: names(await ctx.list(configmaps, { index: 'owner', value: app.metadata.uid!, namespace: 'ns' })),
          inOther: names(await ctx.list(configmaps, { index: 'namespace', value: 'other' })),
          s1: names(await ctx.list(configmaps, { index: 'secret', value: 's1' })),
          s2: names(await ctx.list(configmaps, { index: 'secret', value: 's2' })),
          unknown: await ctx.list(configmaps, { index: 'nope', value: 'x' }).catch((e: unknown) => e),
        };
      },
      [webapps, { gvr: configmaps, indexes: { secret: bySecret } }],
    );

    expect(found.byOwner).toEqual(['ns/a-env', 'other/a-more']);
    expect(found.byOwnerInNs).toEqual(['ns/a-env']);
    expect(found.inOther).toEqual(['other/a-more']);
    expect(found.s1).toEqual(['ns/a-env']);
    expect(found.s2).toEqual(['ns/lone', 'other/a-more']);
    expect(found.unknown).toBeInstanceOf(ObjectNotCachedError);
    expect((found.unknown as Error).message).toContain('cannot list /v1/configmaps by index "nope"');
  });

  it('refuses an index named owner, which is built in', async () => {
    t = createTestController();
    await t.start();
    const err = await t
      .register(webapps, async () => undefined, { cache: [{ gvr: configmaps, indexes: { owner: () => [] } }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toContain('defines an index named "owner", which is built in');
  });
});

/** A write of ConfigMap `ns/<name>` at `resourceVersion`, whose server read returns that version (logged in `refetches`). */
function write(name: string, resourceVersion: string, refetches: string[]) {
  return {
    gvr: configmaps,
    namespace: 'ns',
    name,
    resourceVersion,
    refetch: async (): Promise<CachedObject> => {
      refetches.push(name);
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion, labels: { app: 'a' } } };
    },
  };
}
