import { afterEach, describe, expect, it } from '@jest/globals';
import { silentLogger, type CachedObject, type GroupVersionResource, type InformerSource } from '@protean/core';
import { FakeInformerSource, waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { InformerWatchManager } from './InformerWatchManager.js';
import { KubernetesInformerSource } from './KubernetesInformerSource.js';
import { WatchError } from './WatchError.js';

const cms: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

describe('InformerWatchManager.ensureObjects', () => {
  it('starts an informer of full objects, and refuses a second owner with another transform', async () => {
    const source = new FakeInformerSource({ autoSync: true });
    source.add(cms, { name: 'a', namespace: 'ns', content: { data: { k: 'v' } } });
    const wm = new InformerWatchManager(source, 0, () => undefined, silentLogger());

    await wm.ensureObjects(cms, 'reader');

    expect(source.informers(cms).map((lw) => lw.holdsObjects)).toEqual([true]);
    expect(wm.getInformer(cms)?.get({ namespace: 'ns', name: 'a' })).toHaveProperty('data', { k: 'v' });
    const other = await wm.ensureObjects(cms, 'other', { transform: (o) => o }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(WatchError);
    expect(other).toMatchObject({ reason: 'TransformConflict' });
    // A plain watcher shares the informer of objects; when the reader leaves, it goes back to metadata only.
    await wm.ensureWatch(cms, 'router');
    wm.releaseWatch(cms, 'reader');
    expect(wm.getInformer(cms)?.holdsObjects?.()).toBe(false);
    expect(wm.getInformer(cms)?.get({ namespace: 'ns', name: 'a' })).not.toHaveProperty('data');
    wm.shutdown();
  });

  it('resolves for a running metadata-only informer once its switch to full objects has listed', async () => {
    const source = new FakeInformerSource({ autoSync: true });
    source.add(cms, { name: 'a', namespace: 'ns', content: { data: { k: 'v' } } });
    const wm = new InformerWatchManager(source, 0, () => undefined, silentLogger());
    await wm.ensureWatch(cms, 'router');
    source.setAutoSync(cms, false);

    let resolved = false;
    const pending = wm.ensureObjects(cms, 'reader').then(() => (resolved = true));
    await Promise.resolve();
    expect(resolved).toBe(false);
    source.informer(cms)!.markSynced();
    await pending;

    expect(wm.getInformer(cms)?.holdsObjects?.()).toBe(true);
    wm.shutdown();
  });
});

describe('KubernetesListWatch with full objects (over the in-memory API server)', () => {
  let server: InMemoryApiServer;
  afterEach(async () => server.stop());

  it('lists and watches plain JSON objects, trimmed of managedFields and the last-applied annotation, then transformed', async () => {
    server = await InMemoryApiServer.start();
    const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v', secret: 's' } };
    server.create(cms, {
      ...applied,
      metadata: { ...applied.metadata, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied) } },
    });
    const source = new KubernetesInformerSource({ kubeConfig: server.kubeConfig(), streamingList: 'never' });
    const wm = new InformerWatchManager(source, 0, () => undefined, silentLogger());
    const transform = (o: CachedObject): CachedObject => {
      delete (o['data'] as Record<string, string>)['secret'];
      return o;
    };

    await wm.ensureObjects(cms, 'reader', { transform });
    server.create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' }, data: { k: 'w', secret: 't' } });
    const informer = wm.getInformer(cms)!;
    await waitFor(() => informer.get({ namespace: 'ns', name: 'b' }) !== undefined);

    const a = informer.get({ namespace: 'ns', name: 'a' }) as CachedObject;
    expect(a['data']).toEqual({ k: 'v' });
    expect(a.metadata.annotations ?? {}).toEqual({});
    expect(a.metadata).not.toHaveProperty('managedFields');
    expect((informer.get({ namespace: 'ns', name: 'b' }) as CachedObject)['data']).toEqual({ k: 'w' });
    const accepts = server
      .requests()
      .filter((r) => r.path === '/api/v1/configmaps')
      .map((r) => r.accept);
    expect(accepts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(accepts)).toEqual(new Set(['application/json']));
    wm.shutdown();
  });
});

describe('InformerWatchManager.ensureObjects: a source that does not deliver full objects', () => {
  it('refuses full objects from a source that drops the options: one that says it delivers metadata, and one whose first object is metadata', async () => {
    const fake = new FakeInformerSource({ autoSync: true });
    fake.add(cms, { name: 'a', namespace: 'ns', content: { data: { k: 'v' } } });
    // A dispatch that forgets the options (the list/watch it returns says so).
    const dropsOptions: InformerSource = { createListWatch: (gvr) => fake.createListWatch(gvr) };
    const wm = new InformerWatchManager(dropsOptions, 0, () => undefined, silentLogger());
    const declared = await wm.ensureObjects(cms, 'reader').catch((e: unknown) => e);
    expect(declared).toBeInstanceOf(WatchError);
    expect(declared).toMatchObject({ reason: 'ObjectsNotDelivered' });
    expect((declared as Error).message).toContain("must pass createListWatch's options (ListWatchOptions.objects) on");
    expect(wm.activeWatchCount()).toBe(0);
    wm.shutdown();

    // One that says nothing and delivers what a metadata request returns.
    const silent: InformerSource = {
      createListWatch: (gvr) => {
        const inner = fake.createListWatch(gvr);
        return {
          gvr,
          run: (sink, signal) =>
            inner.run(
              {
                ...sink,
                cache: sink.cache,
                replace: (objects) => sink.replace([...objects].map((o) => ({ ...o, kind: 'PartialObjectMetadata' }))),
                upsert: (o) => sink.upsert({ ...o, kind: 'PartialObjectMetadata' }),
              },
              signal,
            ),
        };
      },
    };
    const wm2 = new InformerWatchManager(silent, 0, () => undefined, silentLogger());
    await wm2.ensureWatch(cms, 'router');
    const judged = await wm2.ensureObjects(cms, 'reader').catch((e: unknown) => e);
    expect(judged).toMatchObject({ reason: 'ObjectsNotDelivered' });
    expect((judged as Error).message).toContain('its first object is a PartialObjectMetadata');
    // The plain watcher keeps its (metadata) informer.
    expect(wm2.getInformer(cms)?.holdsObjects?.()).toBe(false);
    expect(wm2.activeWatchCount()).toBe(1);
    wm2.shutdown();
  });
});
