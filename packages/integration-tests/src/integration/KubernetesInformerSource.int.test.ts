import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { DeletedFinalStateUnknown, KindNotServedError, silentLogger, type WatchEvent } from '@protean/core';
import { KubernetesInformerSource, InformerWatchManager } from '@protean/watch-manager';
import { LIST_ACCEPT, WATCH_ACCEPT } from '@protean/watch-manager/internal';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import {
  CONFIGMAPS,
  createConfigMaps,
  FAST,
  listRequests,
  NAMESPACES,
  runInformer,
  SECRETS,
  waitForValue,
  watchRequests,
  WEBAPPS,
  type RunningInformer,
} from './informerHarness.js';

let server: InMemoryApiServer;
const running: RunningInformer[] = [];

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});

afterEach(async () => {
  for (const r of running.splice(0)) r.abort.abort();
  await server.stop();
});

function start(...args: Parameters<typeof runInformer> extends [unknown, ...infer R] ? R : never): RunningInformer {
  const r = runInformer(server, ...args);
  running.push(r);
  return r;
}

describe('KubernetesInformerSource: list', () => {
  it('lists 1,200 objects in three pages of 500, delivering them all before reporting synced', async () => {
    createConfigMaps(server, 1200);
    const { informer, recorder } = start(CONFIGMAPS);
    await waitForValue(() => informer.hasSynced(), 'sync');
    expect(recorder.of('add')).toHaveLength(1200);
    expect(recorder.events.every((e) => e.type === 'add' && e.initial === true && !e.syncedAtDelivery)).toBe(true);
    expect(informer.list()).toHaveLength(1200);
    expect(informer.get({ namespace: 'team-b', name: 'cm-1' })?.metadata.labels).toEqual({ app: 'demo', idx: '1' });

    const lists = listRequests(server, '/api/v1/configmaps');
    expect(lists).toHaveLength(3);
    expect(lists.map((r) => r.query.get('limit'))).toEqual(['500', '500', '500']);
    expect(lists[0]!.query.get('resourceVersion')).toBe('0');
    expect(lists[1]!.query.has('continue')).toBe(true);
    expect(lists[1]!.query.has('resourceVersion')).toBe(false);
    expect(lists.every((r) => r.accept === LIST_ACCEPT)).toBe(true);
  });

  it('then watches from the list resourceVersion with bookmarks and a randomized 5-10 minute timeout', async () => {
    createConfigMaps(server, 3);
    const listRv = server.currentResourceVersion();
    const { informer } = start(CONFIGMAPS);
    await waitForValue(() => informer.hasSynced(), 'sync');
    const [watch] = await waitForValue(() => {
      const w = watchRequests(server, '/api/v1/configmaps');
      return w.length > 0 && w;
    }, 'a watch request');
    expect(watch!.query.get('resourceVersion')).toBe(listRv);
    expect(watch!.query.get('allowWatchBookmarks')).toBe('true');
    const timeout = Number(watch!.query.get('timeoutSeconds'));
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThanOrEqual(600);
    expect(watch!.accept).toBe(WATCH_ACCEPT);
  });

  it('serves a cluster-scoped resource from its collection path', async () => {
    server.create(NAMESPACES, { metadata: { name: 'ns-1' } });
    const { informer, recorder } = start(NAMESPACES);
    await waitForValue(() => informer.hasSynced(), 'sync');
    server.create(NAMESPACES, { metadata: { name: 'ns-2' } });
    await waitForValue(() => recorder.of('add', 'ns-2').length === 1, 'ns-2 added');
    expect(informer.get({ namespace: '', name: 'ns-1' })?.metadata.namespace).toBeUndefined();
    expect(listRequests(server, '/api/v1/namespaces').length).toBe(1);
  });

  it('watches only one namespace when asked to', async () => {
    createConfigMaps(server, 4);
    const { informer, recorder } = start(CONFIGMAPS, { namespace: 'team-a' });
    await waitForValue(() => informer.hasSynced(), 'sync');
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['cm-0', 'cm-2']);
    server.create(CONFIGMAPS, { metadata: { name: 'other', namespace: 'team-b' } });
    server.create(CONFIGMAPS, { metadata: { name: 'mine', namespace: 'team-a' } });
    await waitForValue(() => recorder.of('add', 'mine').length === 1, 'mine added');
    expect(recorder.of('add', 'other')).toHaveLength(0);
    expect(listRequests(server, '/api/v1/namespaces/team-a/configmaps')).toHaveLength(1);
  });
});

describe('KubernetesInformerSource: watch events', () => {
  it('delivers add, update, label change (with old labels) and delete', async () => {
    const { informer, recorder } = start(CONFIGMAPS);
    await waitForValue(() => informer.hasSynced(), 'sync');
    server.create(CONFIGMAPS, { metadata: { name: 'x', namespace: 'default', labels: { app: 'web' } }, data: { a: '1' } });
    await waitForValue(() => recorder.of('add', 'x').length === 1, 'add');
    expect(recorder.of('add', 'x')[0]!.initial).toBe(false);

    server.patch(CONFIGMAPS, 'default', 'x', { data: { a: '2' } });
    await waitForValue(() => recorder.of('update', 'x').length === 1, 'update');
    const up = recorder.of('update', 'x')[0]!;
    expect(up.old!.metadata.resourceVersion).not.toBe((up.obj as { metadata: { resourceVersion: string } }).metadata.resourceVersion);

    server.patch(CONFIGMAPS, 'default', 'x', { metadata: { labels: { app: 'api' } } });
    await waitForValue(() => recorder.of('update', 'x').length === 2, 'label change');
    const relabel = recorder.of('update', 'x')[1]!;
    expect(relabel.old!.metadata.labels).toEqual({ app: 'web' });
    expect(informer.get({ namespace: 'default', name: 'x' })!.metadata.labels).toEqual({ app: 'api' });

    server.delete(CONFIGMAPS, 'default', 'x');
    await waitForValue(() => recorder.of('delete', 'x').length === 1, 'delete');
    expect(recorder.of('delete', 'x')[0]!.obj).not.toBeInstanceOf(DeletedFinalStateUnknown);
    expect(informer.get({ namespace: 'default', name: 'x' })).toBeUndefined();
  });

  it('caches metadata only: no managedFields, data or last-applied annotation', async () => {
    server.create(CONFIGMAPS, {
      metadata: {
        name: 'm',
        namespace: 'default',
        labels: { a: '1', b: '2', c: '3' },
        annotations: { note: 'keep', 'kubectl.kubernetes.io/last-applied-configuration': '{"big":true}' },
      },
      data: { payload: 'x'.repeat(1024) },
    });
    expect(server.get(CONFIGMAPS, 'default', 'm')!.metadata.managedFields).toBeDefined();
    const { informer } = start(CONFIGMAPS);
    await waitForValue(() => informer.hasSynced(), 'sync');
    const cached = informer.get({ namespace: 'default', name: 'm' })!;
    expect(cached).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: {
        name: 'm',
        namespace: 'default',
        uid: expect.any(String),
        resourceVersion: expect.any(String),
        creationTimestamp: expect.any(String),
        labels: { a: '1', b: '2', c: '3' },
        annotations: { note: 'keep' },
      },
    });
  });

  it('advances the resourceVersion on bookmarks, and the next watch starts from it', async () => {
    await server.stop();
    server = await InMemoryApiServer.start({ bookmarkIntervalMs: 50 });
    const { informer, listWatch } = start(CONFIGMAPS);
    await waitForValue(() => informer.hasSynced(), 'sync');
    const listRv = listWatch.lastSyncResourceVersion();
    server.create(SECRETS, { metadata: { name: 's', namespace: 'default' } });
    const bumped = server.currentResourceVersion();
    expect(bumped).not.toBe(listRv);
    await waitForValue(() => listWatch.lastSyncResourceVersion() === bumped, 'a bookmark at the new resourceVersion');
    const watchesBefore = watchRequests(server, '/api/v1/configmaps').length;
    server.faults.closeWatches();
    const next = await waitForValue(() => watchRequests(server, '/api/v1/configmaps')[watchesBefore], 'the next watch');
    expect(next.query.get('resourceVersion')).toBe(bumped);
    expect(listRequests(server, '/api/v1/configmaps')).toHaveLength(1);
  });

  it('resyncs from the cache as updates of identical objects, without contacting the server', async () => {
    createConfigMaps(server, 3);
    const { informer, recorder } = start(CONFIGMAPS, { resyncPeriodMs: 50 });
    await waitForValue(() => informer.hasSynced(), 'sync');
    await waitForValue(() => watchRequests(server, '/api/v1/configmaps').length === 1, 'the watch');
    const requestsBefore = server.requests().length;
    await waitForValue(() => recorder.of('update').length >= 6, 'two resyncs');
    const updates = recorder.of('update');
    expect(updates.every((u) => u.old === u.obj)).toBe(true);
    expect(new Set(updates.slice(0, 3).map((u) => u.name))).toEqual(new Set(['cm-0', 'cm-1', 'cm-2']));
    expect(server.requests().length).toBe(requestsBefore);
  });
});

describe('InformerWatchManager over KubernetesInformerSource', () => {
  it('resolves ensureWatch once synced and emits normalized events; rejects an unserved GVR at once with a 404 WatchError', async () => {
    createConfigMaps(server, 2);
    const events: WatchEvent[] = [];
    const source = new KubernetesInformerSource({ kubeConfig: server.kubeConfig(), ...FAST });
    const wm = new InformerWatchManager(source, 0, (e) => events.push(e), silentLogger());
    try {
      await wm.ensureWatch(CONFIGMAPS, 'owner');
      expect(events.filter((e) => e.type === 'add')).toHaveLength(2);
      server.patch(CONFIGMAPS, 'team-a', 'cm-0', { metadata: { labels: { app: 'moved' } } });
      await waitForValue(() => events.find((e) => e.type === 'update'), 'update event');
      expect(events.find((e) => e.type === 'update')).toMatchObject({
        name: 'cm-0',
        labels: { app: 'moved' },
        oldLabels: { app: 'demo', idx: '0' },
      });

      const err = await wm.ensureWatch(WEBAPPS, 'owner').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KindNotServedError);
      expect((err as KindNotServedError).status).toBe(404);
      expect((err as KindNotServedError).message).toContain('demo.protean.dev/v1/webapps');
      // Not remembered as a failure: the next caller asks the server again, and is refused again.
      await expect(wm.ensureWatch(WEBAPPS, 'other')).rejects.toBeInstanceOf(KindNotServedError);
      expect(wm.activeWatchCount()).toBe(1);
    } finally {
      wm.shutdown();
    }
    await waitForValue(() => server.openWatchCount() === 0, 'watches closed after shutdown');
  });
});
