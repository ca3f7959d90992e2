import { afterEach, describe, expect, it } from '@jest/globals';
import {
  DeletedFinalStateUnknown,
  gvrKey,
  type GroupVersionResource,
  type PartialObjectMetadata,
  type ResourceEventHandler,
} from '@protean/core';
import { FakeClock, LogRecorder, waitFor } from '@protean/core/testing';
import { InMemoryApiServer, type InMemoryApiServerOptions, type RequestRecord } from '@protean/in-memory-apiserver';
import { KubeTestInformer } from './kubeInformer.testkit.js';
import { KubernetesInformerSource, type KubernetesInformerSourceOptions } from './KubernetesInformerSource.js';
import { StreamingListSupport } from './StreamingListSupport.js';

/*
 * Streaming lists (a watch with sendInitialEvents=true, client-go's
 * WatchList) against the in-memory API server over HTTP, on a fake clock:
 * the initial list and every relist, the atomic commit at the
 * k8s.io/initial-events-end bookmark, and the fallback to paginated LIST.
 */

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const SECRETS: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
const WEBAPPS: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const CM_PATH = '/api/v1/configmaps';
const BACKOFF_MS = 1_000;
const STREAM_TIMEOUT_MS = 10_000;
const FALLBACK_LOG = 'does not serve streaming lists';
const TIMED_OUT_LOG = 'timed out on the streaming list';

interface Seen {
  readonly what: string;
  readonly initial: boolean | undefined;
  /** How many objects the informer's cache held during the callback. */
  readonly cacheSize: number;
}

interface Running {
  readonly informer: KubeTestInformer;
  readonly seen: Seen[];
  readonly errors: Error[];
  readonly abort: AbortController;
}

let server: InMemoryApiServer | undefined;
let clock: FakeClock;
let logs: LogRecorder;
const aborts: AbortController[] = [];

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await server?.stop();
  server = undefined;
});

async function startServer(opts: InMemoryApiServerOptions = {}): Promise<InMemoryApiServer> {
  clock = new FakeClock();
  logs = new LogRecorder('warn');
  server = await InMemoryApiServer.start(opts);
  return server;
}

function source(options: Partial<KubernetesInformerSourceOptions> = {}): KubernetesInformerSource {
  return new KubernetesInformerSource({
    kubeConfig: server!.kubeConfig(),
    clock,
    logger: logs.logger,
    backoff: { initialMs: BACKOFF_MS, maxMs: 8 * BACKOFF_MS, jitter: 0 },
    streamingList: 'auto',
    streamingListTimeoutMs: STREAM_TIMEOUT_MS,
    ...options,
  });
}

function run(from: KubernetesInformerSource, gvr: GroupVersionResource = CONFIGMAPS): Running {
  const seen: Seen[] = [];
  const note = (what: string, initial?: boolean): void => {
    seen.push({ what, initial, cacheSize: informer.list().length });
  };
  const handler: ResourceEventHandler = {
    onAdd: (obj, initial) => note(`add ${obj.metadata.name}`, initial),
    onUpdate: (_old, obj) => note(`update ${obj.metadata.name}`),
    onDelete: (obj) => note(obj instanceof DeletedFinalStateUnknown ? `delete tombstone:${obj.key}` : `delete ${obj.metadata.name}`),
  };
  const informer = new KubeTestInformer(from.createListWatch(gvr), handler, { clock });
  const errors = informer.errors;
  const abort = new AbortController();
  aborts.push(abort);
  informer.run(abort.signal);
  return { informer, seen, errors, abort };
}

const isWatch = (r: { query: URLSearchParams }): boolean => r.query.get('watch') === 'true';
const isStreaming = (r: { query: URLSearchParams }): boolean => isWatch(r) && r.query.get('sendInitialEvents') === 'true';
const requests = (path = CM_PATH): RequestRecord[] => server!.requests().filter((r) => r.path === path);
const lists = (path = CM_PATH): RequestRecord[] => requests(path).filter((r) => !isWatch(r));
const streams = (path = CM_PATH): RequestRecord[] => requests(path).filter(isStreaming);
const plainWatches = (path = CM_PATH): RequestRecord[] => requests(path).filter((r) => isWatch(r) && !isStreaming(r));
const what = (r: Running, from = 0): string[] => r.seen.slice(from).map((s) => s.what);

function createConfigMap(name: string, labels?: Record<string, string>): PartialObjectMetadata {
  return server!.create(CONFIGMAPS, { metadata: { name, namespace: 'default', ...(labels === undefined ? {} : { labels }) } });
}

/** Waits until the informer got the answer to its streaming list: its watchdog and its end-bookmark timer run. */
async function streamOpen(): Promise<void> {
  await waitFor(() => streams().length === 1 && clock.pendingTimers() === 2, { message: 'the streaming list answered' });
}

async function synced(r: Running, watchCount = 1): Promise<void> {
  await waitFor(() => r.informer.hasSynced() && server!.openWatchCount() === watchCount, { message: 'sync and an open watch' });
}

describe('KubernetesListWatch: streaming lists', () => {
  it('lists through one watch with sendInitialEvents, delivers the state at the end bookmark with the cache in place, and watches on the same stream', async () => {
    await startServer();
    for (const name of ['a', 'b', 'c']) createConfigMap(name);
    const r = run(source());
    await synced(r);

    expect(lists()).toEqual([]);
    expect(requests()).toHaveLength(1);
    const q = streams()[0]!.query;
    expect(Object.fromEntries(q)).toEqual({
      watch: 'true',
      allowWatchBookmarks: 'true',
      sendInitialEvents: 'true',
      resourceVersionMatch: 'NotOlderThan',
      timeoutSeconds: expect.stringMatching(/^\d+$/),
    });
    // The first streaming list asks for "" (a consistent read of the latest state), as client-go does.
    expect(q.has('resourceVersion')).toBe(false);
    expect(what(r).sort()).toEqual(['add a', 'add b', 'add c']);
    // Committed at once at the bookmark: every callback saw the whole new cache.
    expect(r.seen.map((s) => [s.initial, s.cacheSize])).toEqual([
      [true, 3],
      [true, 3],
      [true, 3],
    ]);
    expect(r.informer.lastSyncResourceVersion()).toBe(server!.currentResourceVersion());
    expect(r.informer.health().listMode).toBe('streaming');

    createConfigMap('d');
    await waitFor(() => what(r).includes('add d'));
    expect(r.seen.at(-1)).toMatchObject({ initial: false, cacheSize: 4 });
    expect(requests()).toHaveLength(1);
    expect(r.errors).toEqual([]);
  });

  it('relists through a stream from "" after a 410 and tells it as changes: a tombstone, an update, an add, nothing for the rest', async () => {
    await startServer();
    for (const name of ['keep', 'change', 'gone']) createConfigMap(name);
    const r = run(source());
    await synced(r);
    const before = new Map(r.informer.list().map((o) => [o.metadata.name, o]));
    const from = r.seen.length;

    // The next (plain) watch is refused with 410; the changes in between only a relist can see.
    server!.faults.failNext(1, 410, { match: (req) => isWatch(req) && !isStreaming(req) });
    server!.faults.closeWatches();
    server!.delete(CONFIGMAPS, 'default', 'gone');
    server!.patch(CONFIGMAPS, 'default', 'change', { metadata: { labels: { changed: 'yes' } } });
    createConfigMap('new');
    await waitFor(() => streams().length === 2 && r.seen.length === from + 3 && server!.openWatchCount() === 1);

    expect(what(r, from)).toEqual(['delete tombstone:default/gone', 'update change', 'add new']);
    expect(r.seen[from + 2]).toMatchObject({ initial: false, cacheSize: 3 });
    expect(streams()[1]!.query.has('resourceVersion')).toBe(false);
    expect(plainWatches()).toHaveLength(1);
    expect(lists()).toEqual([]);
    expect(r.informer.get({ namespace: 'default', name: 'keep' })).toBe(before.get('keep'));
    expect(r.errors).toMatchObject([{ status: 410 }]);
    expect(r.informer.health().relists).toBe(1);
  });

  it('after another failure, streams its relist from the last synced resourceVersion (not older than)', async () => {
    await startServer();
    createConfigMap('a');
    const r = run(source());
    await synced(r);
    const syncedRv = r.informer.lastSyncResourceVersion();
    server!.faults.failNext(1, 500, { match: (req) => isWatch(req) && !isStreaming(req) });
    server!.faults.closeWatches();
    await waitFor(() => clock.pendingTimers() > 0 && r.errors.length === 1);
    clock.advance(BACKOFF_MS);
    await waitFor(() => streams().length === 2 && server!.openWatchCount() === 1);
    const relist = streams()[1]!.query;
    expect(relist.get('resourceVersion')).toBe(syncedRv);
    expect(relist.get('resourceVersionMatch')).toBe('NotOlderThan');
    expect(r.informer.list().map((o) => o.metadata.name)).toEqual(['a']);
  });

  it('keeps streaming after a 403 (a LIST would be refused as well): it backs off and streams again', async () => {
    await startServer();
    server!.faults.failNext(1, 403, { match: isStreaming });
    const r = run(source());
    await waitFor(() => r.errors.length === 1);
    expect(r.errors[0]).toMatchObject({ status: 403 });
    clock.advance(BACKOFF_MS);
    await synced(r);
    expect(streams()).toHaveLength(2);
    expect(lists()).toEqual([]);
    expect(logs.find(FALLBACK_LOG)).toEqual([]);
  });

  it('pages LISTs by default (streamingList unset), where the server streams too', async () => {
    await startServer();
    createConfigMap('a');
    const r = run(new KubernetesInformerSource({ kubeConfig: server!.kubeConfig(), clock, logger: logs.logger }));
    await synced(r);
    expect(streams()).toEqual([]);
    expect(lists()).toHaveLength(1);
    expect(r.informer.health().listMode).toBe('paginated');
  });

  it('never streams with streamingList: never', async () => {
    await startServer();
    createConfigMap('a');
    const r = run(source({ streamingList: 'never' }));
    await synced(r);
    expect(streams()).toEqual([]);
    expect(lists()).toHaveLength(1);
    expect(r.informer.health().listMode).toBe('paginated');
  });
});

describe('KubernetesListWatch: falling back to paginated LIST', () => {
  it('pages a LIST at once when the server answers the streaming request 422, remembers it for the group version, and warns once', async () => {
    await startServer({ watchList: 'disabled' });
    createConfigMap('a');
    server!.create(SECRETS, { metadata: { name: 's', namespace: 'default' } });
    server!.registerResource({ ...WEBAPPS, kind: 'WebApp', namespaced: true });
    const shared = source();
    const cms = run(shared);
    await synced(cms);

    expect(requests().map((req) => (isStreaming(req) ? 'stream' : isWatch(req) ? 'watch' : 'list'))).toEqual(['stream', 'list', 'watch']);
    expect(lists()[0]!.query.get('resourceVersion')).toBe('0');
    expect(what(cms)).toEqual(['add a']);
    // Not a failure: nothing reported, no backoff.
    expect(cms.errors).toEqual([]);
    expect(cms.informer.health()).toMatchObject({ failing: undefined, listMode: 'paginated' });
    expect(logs.find(FALLBACK_LOG)).toHaveLength(1);

    // Another resource of v1 goes straight to LIST; another group version tries streaming first.
    const secrets = run(shared, SECRETS);
    await synced(secrets, 2);
    expect(streams('/api/v1/secrets')).toEqual([]);
    const webapps = run(shared, WEBAPPS);
    await synced(webapps, 3);
    expect(streams('/apis/demo.protean.dev/v1/webapps')).toHaveLength(1);
    expect(logs.find(FALLBACK_LOG)).toHaveLength(2);
  });

  it('pages a LIST when the end bookmark does not arrive within streamingListTimeoutMs, without delivering the stream’s events', async () => {
    await startServer({ watchList: 'ignored' });
    createConfigMap('a');
    const r = run(source());
    // The server streams a plain watch: its ADDED events, and never the end bookmark.
    await streamOpen();
    expect(r.informer.hasSynced()).toBe(false);
    clock.advance(STREAM_TIMEOUT_MS - 1);
    expect(lists()).toEqual([]);
    clock.advance(1);
    await synced(r);

    expect(requests().map((req) => (isStreaming(req) ? 'stream' : isWatch(req) ? 'watch' : 'list'))).toEqual(['stream', 'list', 'watch']);
    expect(what(r)).toEqual(['add a']);
    expect(r.seen[0]!.initial).toBe(true);
    expect(r.errors).toEqual([]);
    expect(logs.find(FALLBACK_LOG)).toHaveLength(1);
    expect(String(logs.find(FALLBACK_LOG)[0]!['err'])).toContain(`no initial-events-end bookmark within ${STREAM_TIMEOUT_MS} ms`);
  });

  it('pages a LIST when the stream ends cleanly before the end bookmark', async () => {
    await startServer({ watchList: 'ignored' });
    createConfigMap('a');
    const r = run(source());
    await waitFor(() => server!.openWatchCount() === 1);
    server!.faults.closeWatches();
    await synced(r);
    expect(lists()).toHaveLength(1);
    expect(what(r)).toEqual(['add a']);
    expect(logs.find(FALLBACK_LOG)).toHaveLength(1);
  });

  it('streams again, without falling back, when the stream breaks before the end bookmark', async () => {
    await startServer({ watchList: 'ignored' });
    createConfigMap('a');
    const r = run(source());
    await streamOpen();
    server!.faults.dropWatches();
    await waitFor(() => streams().length === 2 && server!.openWatchCount() === 1);
    expect(lists()).toEqual([]);
    expect(r.informer.hasSynced()).toBe(false);
    expect(r.errors).toMatchObject([{ reason: 'ConnectionReset' }]);
    expect(logs.find(FALLBACK_LOG)).toEqual([]);
  });

  it('with streamingList: always, retries a refused streaming list with backoff and never lists', async () => {
    await startServer({ watchList: 'disabled' });
    const r = run(source({ streamingList: 'always' }));
    await waitFor(() => r.errors.length === 1);
    expect(r.errors[0]).toMatchObject({ status: 422, reason: 'Invalid' });
    expect(r.errors[0]!.message).toContain('sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    clock.advance(BACKOFF_MS);
    await waitFor(() => r.errors.length === 2);
    expect(streams()).toHaveLength(2);
    expect(lists()).toEqual([]);
    expect(r.informer.health()).toMatchObject({ synced: false, listMode: 'streaming', failing: { consecutive: 2, status: 422 } });
    expect(logs.find(FALLBACK_LOG)).toEqual([]);
  });

  it('stopped while streaming its list, leaves no timer and never syncs', async () => {
    await startServer({ watchList: 'ignored' });
    createConfigMap('a');
    const r = run(source());
    await waitFor(() => server!.openWatchCount() === 1);
    r.abort.abort();
    expect(clock.pendingTimers()).toBe(0);
    await waitFor(() => server!.openWatchCount() === 0);
    expect(r.informer.hasSynced()).toBe(false);
    expect(r.seen).toEqual([]);
  });
});

describe('KubernetesListWatch: a streaming list the server times out on (Too large resource version)', () => {
  const kinds = (): string[] => requests().map((req) => (isStreaming(req) ? 'stream' : isWatch(req) ? 'watch' : 'list'));

  it('pages a LIST at once for that list only, without remembering a fallback, and streams its next relist again', async () => {
    await startServer();
    logs = new LogRecorder('debug');
    for (const name of ['a', 'b', 'c']) createConfigMap(name);
    const support = new StreamingListSupport();
    // The watch cache misses its freshness wait: an in-stream ERROR 504 Timeout before any initial event.
    server!.faults.timeOutStreamingLists(1);
    const r = run(source({ pageSize: 2, streamingListSupport: support }));
    // No clock advance: a backoff would never end.
    await synced(r);

    expect(kinds()).toEqual(['stream', 'list', 'list', 'watch']);
    const [first, second] = lists();
    // The first list of all: resourceVersion 0 in pages, as any first LIST.
    expect(first!.query.get('resourceVersion')).toBe('0');
    expect(first!.query.get('limit')).toBe('2');
    expect(second!.query.get('continue')).toEqual(expect.any(String));
    expect(what(r).sort()).toEqual(['add a', 'add b', 'add c']);
    expect(r.seen.map((s) => [s.initial, s.cacheSize])).toEqual([
      [true, 3],
      [true, 3],
      [true, 3],
    ]);
    expect(r.informer.lastSyncResourceVersion()).toBe(server!.currentResourceVersion());
    // Not a failure, not a refusal: nothing reported, no backoff, streaming still the mode.
    expect(r.errors).toEqual([]);
    expect(r.informer.health()).toMatchObject({ synced: true, failing: undefined, listMode: 'streaming' });
    expect(support.refusals().size).toBe(0);
    expect(logs.find(FALLBACK_LOG)).toEqual([]);
    const logged = logs.find(TIMED_OUT_LOG);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 30, gvr: gvrKey(CONFIGMAPS), status: 504 });
    expect(String(logged[0]!['err'])).toContain('Too large resource version');

    // A 410 on the next plain watch: the relist streams again (from "") and tells the changes as a diff.
    const from = r.seen.length;
    server!.faults.failNext(1, 410, { match: (req) => isWatch(req) && !isStreaming(req) });
    server!.faults.closeWatches();
    // The closed watch saw no event: the next one waits for the short-watch backoff.
    await waitFor(() => server!.openWatchCount() === 0 && clock.pendingTimers() === 1);
    server!.delete(CONFIGMAPS, 'default', 'b');
    createConfigMap('d');
    clock.advance(BACKOFF_MS);
    await waitFor(() => streams().length === 2 && r.seen.length === from + 2 && server!.openWatchCount() === 1);
    expect(kinds()).toEqual(['stream', 'list', 'list', 'watch', 'watch', 'stream']);
    expect(what(r, from)).toEqual(['delete tombstone:default/b', 'add d']);
    expect(
      r.informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c', 'd']);
    expect(r.informer.health().listMode).toBe('streaming');
  });

  it('a relist streamed from the last synced resourceVersion that times out pages a LIST from "" at once, and tells the changes as a diff', async () => {
    await startServer();
    logs = new LogRecorder('debug');
    for (const name of ['keep', 'change', 'gone']) createConfigMap(name);
    const r = run(source({ pageSize: 2 }));
    await synced(r);
    const syncedRv = r.informer.lastSyncResourceVersion();
    const before = new Map(r.informer.list().map((o) => [o.metadata.name, o]));
    const from = r.seen.length;

    server!.faults.failNext(1, 500, { match: (req) => isWatch(req) && !isStreaming(req) });
    server!.faults.timeOutStreamingLists(1);
    server!.faults.closeWatches();
    await waitFor(() => clock.pendingTimers() > 0 && r.errors.length === 1);
    server!.delete(CONFIGMAPS, 'default', 'gone');
    server!.patch(CONFIGMAPS, 'default', 'change', { metadata: { labels: { changed: 'yes' } } });
    createConfigMap('new');
    // The 500's backoff; nothing after it.
    clock.advance(BACKOFF_MS);
    await waitFor(() => r.seen.length === from + 3 && server!.openWatchCount() === 1);

    expect(kinds()).toEqual(['stream', 'watch', 'stream', 'list', 'list', 'watch']);
    expect(streams()[1]!.query.get('resourceVersion')).toBe(syncedRv);
    // The server has not reached what the stream asked for: the LIST asks for "" (the latest), in pages.
    const [first] = lists();
    expect(first!.query.has('resourceVersion')).toBe(false);
    expect(first!.query.get('limit')).toBe('2');
    expect(what(r, from)).toEqual(['delete tombstone:default/gone', 'update change', 'add new']);
    expect(r.informer.get({ namespace: 'default', name: 'keep' })).toBe(before.get('keep'));
    expect(r.errors).toMatchObject([{ status: 500 }]);
    expect(logs.find(TIMED_OUT_LOG)).toHaveLength(1);
    expect(r.informer.health().listMode).toBe('streaming');
  });

  it('with streamingList: always, retries the timed-out streaming list with backoff and never lists', async () => {
    await startServer();
    createConfigMap('a');
    server!.faults.timeOutStreamingLists(1);
    const r = run(source({ streamingList: 'always' }));
    await waitFor(() => r.errors.length === 1);
    expect(r.errors[0]).toMatchObject({ status: 504, reason: 'Timeout' });
    clock.advance(BACKOFF_MS);
    await synced(r);
    expect(kinds()).toEqual(['stream', 'stream']);
    expect(lists()).toEqual([]);
  });
});
