import { afterEach, describe, expect, it } from '@jest/globals';
import { FakeClock } from '@protean/core/testing';
import { InMemoryApiServer } from './InMemoryApiServer.js';
import type { InMemoryApiServerOptions } from './types.js';
import { TestWatch } from './TestWatch.testkit.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const META_ONE = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

let server: InMemoryApiServer;
const watches: TestWatch[] = [];

async function start(opts: InMemoryApiServerOptions = {}): Promise<InMemoryApiServer> {
  server = await InMemoryApiServer.start(opts);
  return server;
}

async function watch(path: string, headers: Record<string, string> = {}): Promise<TestWatch> {
  const w = new TestWatch(`${server.url}${path}`, headers);
  watches.push(w);
  await w.ready;
  return w;
}

afterEach(async () => {
  for (const w of watches.splice(0)) w.close();
  await server.stop();
});

function summary(w: TestWatch): string[] {
  return w.events.map((e) => `${e.type} ${String(e.object.metadata['name'])}`);
}

describe('WATCH', () => {
  it('starts with the current objects as ADDED, then streams changes as newline-delimited JSON', async () => {
    await start();
    server.create(CM, { metadata: { name: 'old', namespace: 'w' } });
    const w = await watch('/api/v1/namespaces/w/configmaps?watch=true');
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    server.create(CM, { metadata: { name: 'new', namespace: 'w' } });
    server.patch(CM, 'w', 'new', { data: { a: '1' } });
    server.delete(CM, 'w', 'new');
    await w.waitForEvents(4);
    expect(summary(w)).toEqual(['ADDED old', 'ADDED new', 'MODIFIED new', 'DELETED new']);
    expect(w.events[3]?.object.metadata['resourceVersion']).toBe(server.currentResourceVersion());
    expect(server.openWatchCount()).toBe(1);
  });

  it('scopes a namespace watch to its namespace and a cluster-wide watch to all', async () => {
    await start();
    const ns = await watch('/api/v1/namespaces/a/configmaps?watch=1');
    const all = await watch('/api/v1/configmaps?watch=1');
    server.create(CM, { metadata: { name: 'x', namespace: 'b' } });
    server.create(CM, { metadata: { name: 'y', namespace: 'a' } });
    await all.waitForEvents(2);
    await ns.waitForEvents(1);
    expect(summary(ns)).toEqual(['ADDED y']);
    expect(summary(all)).toEqual(['ADDED x', 'ADDED y']);
  });

  it('replays the history after a resourceVersion, then goes live', async () => {
    await start();
    server.create(CM, { metadata: { name: 'a', namespace: 'r' } });
    const rv = server.currentResourceVersion();
    server.create(CM, { metadata: { name: 'b', namespace: 'r' } });
    server.patch(CM, 'r', 'a', { data: { x: 'y' } });
    const w = await watch(`/api/v1/namespaces/r/configmaps?watch=true&resourceVersion=${rv}`);
    server.delete(CM, 'r', 'b');
    await w.waitForEvents(3);
    expect(summary(w)).toEqual(['ADDED b', 'MODIFIED a', 'DELETED b']);
  });

  it('sends an in-stream ERROR 410 Expired for a resourceVersion older than the history window, then ends', async () => {
    await start({ historyWindow: 2 });
    server.create(CM, { metadata: { name: 'a', namespace: 'e' } });
    const rv = server.currentResourceVersion();
    for (let i = 0; i < 3; i++) server.patch(CM, 'e', 'a', { data: { i: String(i) } });
    const w = await watch(`/api/v1/namespaces/e/configmaps?watch=true&resourceVersion=${rv}`);
    expect(w.status).toBe(200);
    await w.waitForEvents(1);
    expect(w.events[0]).toEqual({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/),
        reason: 'Expired',
        code: 410,
      },
    });
    expect(await w.waitForOutcome()).toBe('end');
  });

  it('turns changes across the label selector into ADDED and DELETED, as the watch cache does', async () => {
    await start();
    server.create(CM, { metadata: { name: 'o', namespace: 's', labels: { app: 'no' } } });
    const w = await watch(`/api/v1/namespaces/s/configmaps?watch=true&labelSelector=${encodeURIComponent('app=yes')}`);
    server.patch(CM, 's', 'o', { metadata: { labels: { app: 'yes' } } });
    server.patch(CM, 's', 'o', { data: { k: 'v' } });
    server.patch(CM, 's', 'o', { metadata: { labels: { app: 'no' } } });
    await w.waitForEvents(3);
    expect(summary(w)).toEqual(['ADDED o', 'MODIFIED o', 'DELETED o']);
    const deleted = w.events[2]!.object;
    expect(deleted.metadata['labels']).toEqual({ app: 'yes' });
    expect(deleted.metadata['resourceVersion']).toBe(server.currentResourceVersion());
  });

  it('streams PartialObjectMetadata objects for a metadata-only watch', async () => {
    await start();
    const w = await watch('/api/v1/namespaces/m/configmaps?watch=true', { accept: META_ONE });
    server.create(CM, { metadata: { name: 'p', namespace: 'm' }, data: { big: 'x' } });
    await w.waitForEvents(1);
    expect(w.events[0]!.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: expect.objectContaining({ name: 'p' }),
    });
  });

  it('sends BOOKMARKs every bookmarkIntervalMs only when allowed, carrying just kind, apiVersion and resourceVersion', async () => {
    const clock = new FakeClock();
    await start({ clock, bookmarkIntervalMs: 1000 });
    const plain = await watch('/api/v1/configmaps?watch=true');
    const w = await watch('/api/v1/configmaps?watch=true&allowWatchBookmarks=true');
    server.create(CM, { metadata: { name: 'b', namespace: 'k' } });
    await w.waitForEvents(1);
    clock.advance(1000);
    await w.waitForEvents(2);
    expect(w.events[1]).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: server.currentResourceVersion() } },
    });
    clock.advance(1000);
    await w.waitForEvents(3);
    expect(w.events[2]?.type).toBe('BOOKMARK');
    expect(summary(plain)).toEqual(['ADDED b']);
  });

  it('marks the end of initial events with an annotated bookmark for sendInitialEvents=true', async () => {
    await start();
    server.create(CM, { metadata: { name: 'i', namespace: 'k' } });
    const w = await watch(
      '/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      { accept: META_ONE },
    );
    await w.waitForEvents(2);
    expect(w.events[0]?.type).toBe('ADDED');
    expect(w.events[1]).toEqual({
      type: 'BOOKMARK',
      object: {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { resourceVersion: server.currentResourceVersion(), annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    });
  });

  it('with watchList: disabled, answers a streaming list 422 as a server with the WatchList feature gate off', async () => {
    await start({ watchList: 'disabled' });
    const res = await fetch(`${server.url}/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      reason: 'Invalid',
      message:
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', field: 'sendInitialEvents' }] },
    });
    // A plain watch is served as usual.
    const plain = await watch('/api/v1/configmaps?watch=true');
    expect(plain.status).toBe(200);
  });

  it('with watchList: ignored, serves a streaming list as a plain watch: no end bookmark', async () => {
    const clock = new FakeClock();
    await start({ watchList: 'ignored', clock, bookmarkIntervalMs: 1000 });
    server.create(CM, { metadata: { name: 'i', namespace: 'k' } });
    const w = await watch('/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact&allowWatchBookmarks=true');
    await w.waitForEvents(1);
    clock.advance(1000);
    await w.waitForEvents(2);
    expect(w.events.map((e) => [e.type, e.object.metadata['annotations']])).toEqual([
      ['ADDED', undefined],
      ['BOOKMARK', undefined],
    ]);
  });

  it('ends the stream cleanly at timeoutSeconds, after a last bookmark', async () => {
    const clock = new FakeClock();
    await start({ clock });
    const w = await watch('/api/v1/configmaps?watch=true&timeoutSeconds=5&allowWatchBookmarks=true');
    clock.advance(4999);
    expect(w.outcome).toBe('open');
    clock.advance(1);
    expect(await w.waitForOutcome()).toBe('end');
    expect(w.events.map((e) => e.type)).toEqual(['BOOKMARK']);
    expect(clock.pendingTimers()).toBe(0);
    expect(server.openWatchCount()).toBe(0);
  });

  it('ends open watches of a resource that is unregistered and answers 404 for it afterwards', async () => {
    await start();
    const G = { group: 'example.com', version: 'v1', resource: 'things' };
    server.registerResource({ ...G, kind: 'Thing', namespaced: false });
    const w = await watch('/apis/example.com/v1/things?watch=true');
    server.unregisterResource(G);
    expect(await w.waitForOutcome()).toBe('end');
    expect((await fetch(`${server.url}/apis/example.com/v1/things`)).status).toBe(404);
  });

  it('watches one object through the legacy /watch/ path', async () => {
    await start();
    const w = await watch('/api/v1/watch/namespaces/n/configmaps/one');
    server.create(CM, { metadata: { name: 'two', namespace: 'n' } });
    server.create(CM, { metadata: { name: 'one', namespace: 'n' } });
    await w.waitForEvents(1);
    expect(summary(w)).toEqual(['ADDED one']);
  });
});
