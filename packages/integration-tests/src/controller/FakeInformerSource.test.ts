import { describe, expect, it } from '@jest/globals';
import { silentLogger, type WatchEvent } from '@protean/core';
import { InformerWatchManager } from '@protean/watch-manager';
import { FakeInformerError } from '@protean/core/testing';
import { FakeInformerSource } from '@protean/core/testing';
import { FakeStatusError } from '@protean/core/testing';

const gvr = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const other = { group: '', version: 'v1', resource: 'configmaps' };

function watchManager(source: FakeInformerSource, events: WatchEvent[] = []): InformerWatchManager {
  return new InformerWatchManager(source, 0, (e) => void events.push(e), silentLogger(), {
    syncTimeoutMs: 5_000,
  });
}

describe('FakeInformerSource', () => {
  it('records the list/watches it creates, per GVR', () => {
    const source = new FakeInformerSource();
    const a = source.createListWatch(gvr);
    const b = source.createListWatch(other);
    const c = source.createListWatch(gvr);
    expect(source.informers()).toEqual([a, b, c]);
    expect(source.informers(gvr)).toEqual([a, c]);
    expect(source.informer(gvr)).toBe(c);
    expect(source.runningInformers()).toEqual([]);
  });

  it('fills new objects in (generation 1, uid, resourceVersion) and keeps unspecified fields on update', () => {
    const source = new FakeInformerSource();
    const added = source.add(gvr, { name: 'a', namespace: 'ns', labels: { app: 'web' } });
    expect(added.metadata).toMatchObject({ name: 'a', namespace: 'ns', generation: 1, labels: { app: 'web' } });
    expect(added.metadata.uid).toBeDefined();
    const updated = source.update(gvr, { name: 'a', namespace: 'ns', generation: 2 });
    expect(updated.metadata).toMatchObject({ generation: 2, labels: { app: 'web' }, uid: added.metadata.uid });
    expect(updated.metadata.resourceVersion).not.toBe(added.metadata.resourceVersion);
    expect(source.get(gvr, { namespace: 'ns', name: 'a' })).toBe(updated);
    expect(() => source.add(gvr, { name: 'a', namespace: 'ns' })).toThrow(FakeInformerError);
    expect(() => source.update(gvr, { name: 'b', namespace: 'ns' })).toThrow(/ns\/b/);
    source.delete(gvr, { namespace: 'ns', name: 'a' });
    expect(source.objects(gvr)).toEqual([]);
  });

  it('lets an InformerWatchManager list existing objects and receive later changes as events', async () => {
    const source = new FakeInformerSource();
    source.add(gvr, { name: 'a', namespace: 'ns' });
    const events: WatchEvent[] = [];
    const wm = watchManager(source, events);
    await wm.ensureWatch(gvr, 'test');
    source.update(gvr, { name: 'a', namespace: 'ns', generation: 2 });
    source.delete(gvr, { namespace: 'ns', name: 'a' });
    expect(events.map((e) => [e.type, e.name, e.generation])).toEqual([
      ['add', 'a', 1],
      ['update', 'a', 2],
      ['delete', 'a', 2],
    ]);
    wm.shutdown();
    expect(source.informer(gvr)!.isStopped()).toBe(true);
  });

  it('holds a GVR unsynced until its informer is marked synced', async () => {
    const source = new FakeInformerSource();
    source.setAutoSync(gvr, false);
    source.add(gvr, { name: 'a', namespace: 'ns' });
    const events: WatchEvent[] = [];
    const wm = watchManager(source, events);
    let synced = false;
    const ensuring = wm.ensureWatch(gvr, 'test').then(() => (synced = true));
    await Promise.resolve();
    expect(synced).toBe(false);
    source.add(gvr, { name: 'b', namespace: 'ns' }); // not yet listed: picked up by the list
    expect(events).toEqual([]);
    source.informer(gvr)!.markSynced();
    await ensuring;
    expect(events.map((e) => e.name).sort()).toEqual(['a', 'b']);
    wm.shutdown();
  });

  it('makes a GVR fail to sync with a 404 by default, so an InformerWatchManager rejects at once', async () => {
    const source = new FakeInformerSource();
    source.failSync(gvr);
    const wm = watchManager(source);
    const err = await wm.ensureWatch(gvr, 'test').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'KindNotServedError', reason: 'NotFound' });
    expect((err as Error).cause).toBeInstanceOf(FakeStatusError);
    expect(source.informer(gvr)!.isStopped()).toBe(true);

    source.clearSyncFailure(gvr);
    const wm2 = watchManager(source);
    await expect(wm2.ensureWatch(gvr, 'test')).resolves.toBeUndefined();
    wm2.shutdown();
  });
});
