import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  DeletedFinalStateUnknown,
  type GroupVersionResource,
  type PartialObjectMetadata,
  type ResourceEventHandler,
  type TimerHandle,
} from '@protean/core';
import { FakeClock, waitFor } from '@protean/core/testing';
import { InMemoryApiServer, type RequestRecord } from '@protean/in-memory-apiserver';
import { KubeTestInformer } from './kubeInformer.testkit.js';
import { KubernetesListWatch } from './KubernetesListWatch.js';
import type { KubernetesInformerOptions } from './KubernetesInformerOptions.js';
import { KubernetesRequestError } from './KubernetesRequestError.js';

/*
 * KubernetesListWatch under the informer engine, against the in-memory API server over HTTP.
 * The informer runs on a fake clock, so its backoff sleeps, watchdog and
 * short-watch pacing move only when a test advances it; the server's
 * bookmarks run on a second fake clock. These tests pin the paginated LIST
 * (`streamingList: 'never'`); the streaming list is tested in
 * KubernetesListWatch.streaming.test.ts.
 */

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const SECRETS: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
const WEBAPPS: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const CM_PATH = '/api/v1/configmaps';
const BACKOFF_MS = 1_000;
const INACTIVITY_MS = 60_000;
const BOOKMARK_MS = 1_000;

/** A fake clock that also records the delay of every timer set on it. */
class RecordingFakeClock extends FakeClock {
  readonly delays: number[] = [];

  override setTimeout(fn: () => void, delayMs: number): TimerHandle {
    this.delays.push(delayMs);
    return super.setTimeout(fn, delayMs);
  }

  /** The delays asked for other than the requests' inactivity watchdogs: the informer's sleeps. */
  sleeps(): number[] {
    return this.delays.filter((d) => d !== INACTIVITY_MS);
  }
}

interface Seen {
  readonly type: 'add' | 'update' | 'delete';
  readonly obj: PartialObjectMetadata | DeletedFinalStateUnknown;
  readonly old?: PartialObjectMetadata;
  readonly initial?: boolean;
  /** What `informer.get` returned for the object during the callback. */
  readonly cached: PartialObjectMetadata | undefined;
  readonly syncedAtDelivery: boolean;
}

/** Records each callback with the informer's cache and sync state at that moment. */
class Recorder implements ResourceEventHandler {
  readonly seen: Seen[] = [];
  informer!: KubeTestInformer;

  onAdd(obj: PartialObjectMetadata, initial: boolean): void {
    this.seen.push({ type: 'add', obj, initial, cached: this.cachedOf(obj), syncedAtDelivery: this.informer.hasSynced() });
  }

  onUpdate(old: PartialObjectMetadata, obj: PartialObjectMetadata): void {
    this.seen.push({ type: 'update', obj, old, cached: this.cachedOf(obj), syncedAtDelivery: this.informer.hasSynced() });
  }

  onDelete(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    const meta = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    this.seen.push({
      type: 'delete',
      obj,
      cached: meta === undefined ? undefined : this.cachedOf(meta),
      syncedAtDelivery: this.informer.hasSynced(),
    });
  }

  /** `type name` of each callback from `from` on. */
  summary(from = 0): string[] {
    return this.seen.slice(from).map((s) => `${s.type} ${nameOf(s.obj)}`);
  }

  private cachedOf(obj: PartialObjectMetadata): PartialObjectMetadata | undefined {
    return this.informer.get({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
  }
}

function nameOf(obj: PartialObjectMetadata | DeletedFinalStateUnknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return `tombstone:${obj.key}`;
  return obj.metadata.name;
}

interface Running {
  readonly informer: KubeTestInformer;
  readonly recorder: Recorder;
  readonly errors: Error[];
  readonly abort: AbortController;
}

let server: InMemoryApiServer;
let serverClock: FakeClock;
let clock: RecordingFakeClock;
const runs: Running[] = [];

beforeEach(async () => {
  serverClock = new FakeClock();
  clock = new RecordingFakeClock();
  server = await InMemoryApiServer.start({ clock: serverClock, bookmarkIntervalMs: BOOKMARK_MS });
});

afterEach(async () => {
  for (const r of runs.splice(0)) r.abort.abort();
  await server.stop();
});

/** Builds an informer of `gvr` on the fake clock, adds a recorder and runs it. */
function run(gvr: GroupVersionResource = CONFIGMAPS, options: Partial<KubernetesInformerOptions> = {}): Running {
  const recorder = new Recorder();
  const listWatch = new KubernetesListWatch(gvr, {
    kubeConfig: server.kubeConfig(),
    clock,
    backoff: { initialMs: BACKOFF_MS, maxMs: 8 * BACKOFF_MS, jitter: 0 },
    inactivityTimeoutMs: INACTIVITY_MS,
    streamingList: 'never',
    ...options,
  });
  const informer = new KubeTestInformer(listWatch, recorder, { clock });
  recorder.informer = informer;
  const abort = new AbortController();
  informer.run(abort.signal);
  const r = { informer, recorder, errors: informer.errors, abort };
  runs.push(r);
  return r;
}

/** Runs an informer and waits until it has synced and its watch is open. */
async function runSynced(gvr: GroupVersionResource = CONFIGMAPS, options: Partial<KubernetesInformerOptions> = {}): Promise<Running> {
  const r = run(gvr, options);
  await waitFor(() => r.informer.hasSynced() && server.openWatchCount() === 1, { message: 'sync and an open watch' });
  return r;
}

const isWatch = (r: { query: URLSearchParams }): boolean => r.query.get('watch') === 'true';
const lists = (path = CM_PATH): RequestRecord[] => server.requests().filter((r) => r.path === path && !isWatch(r));
const watches = (path = CM_PATH): RequestRecord[] => server.requests().filter((r) => r.path === path && isWatch(r));

/** Creates a ConfigMap in `default` and waits until the informer has delivered its add (the watch made progress). */
async function createSeen(r: Running, name: string): Promise<PartialObjectMetadata> {
  server.create(CONFIGMAPS, { metadata: { name, namespace: 'default' } });
  await waitFor(() => r.recorder.summary().includes(`add ${name}`), { message: `the add of ${name}` });
  return r.informer.get({ namespace: 'default', name })!;
}

/** Lets pending I/O callbacks and promise continuations run a few times over (no timer involved). */
async function turns(count = 10): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('KubernetesListWatch: list and sync', () => {
  it('delivers the listed objects as its initial list, with the cache already in place, then reports synced', async () => {
    for (const name of ['cm-0', 'cm-1', 'cm-2']) server.create(CONFIGMAPS, { metadata: { name, namespace: 'default' } });
    const listRv = server.currentResourceVersion();
    const { informer, recorder } = run();
    expect(informer.hasSynced()).toBe(false);
    await waitFor(() => informer.hasSynced());

    expect(recorder.summary().sort()).toEqual(['add cm-0', 'add cm-1', 'add cm-2']);
    for (const s of recorder.seen) {
      expect(s).toMatchObject({ initial: true, syncedAtDelivery: false });
      expect(s.cached).toBe(s.obj);
    }
    expect(informer.hasSynced()).toBe(true);
    expect(informer.lastSyncResourceVersion()).toBe(listRv);
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['cm-0', 'cm-1', 'cm-2']);
  });

  it('takes over from another list/watch with a list not older than the resourceVersion it is given', async () => {
    server.create(CONFIGMAPS, { metadata: { name: 'a', namespace: 'default' } });
    const rv = server.currentResourceVersion();
    const listWatch = new KubernetesListWatch(
      CONFIGMAPS,
      { kubeConfig: server.kubeConfig(), clock, streamingList: 'never' },
      { notOlderThan: rv },
    );
    const informer = new KubeTestInformer(listWatch);
    const abort = new AbortController();
    try {
      informer.run(abort.signal);
      await waitFor(() => informer.hasSynced());
      expect(lists()[0]!.query.get('resourceVersion')).toBe(rv);
      expect(informer.list().map((o) => o.metadata.name)).toEqual(['a']);
    } finally {
      abort.abort();
    }
  });

  it('refuses to run twice, and makes no request when its signal is already aborted', async () => {
    const informer = new KubeTestInformer(new KubernetesListWatch(CONFIGMAPS, { kubeConfig: server.kubeConfig(), clock }));
    const abort = new AbortController();
    abort.abort();
    informer.run(abort.signal);
    expect(() => informer.run(new AbortController().signal)).toThrow(/already run/);
    expect(informer.isStopped()).toBe(true);
    await turns();
    expect(server.requests()).toEqual([]);
    expect(informer.hasSynced()).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('KubernetesListWatch: watch events', () => {
  it('applies each watch event to its cache before the handlers hear of it, with the cached object as the old one', async () => {
    const r = await runSynced();
    const added = await createSeen(r, 'x');
    expect(r.recorder.seen[0]).toMatchObject({ type: 'add', initial: false, syncedAtDelivery: true });
    expect(r.recorder.seen[0]!.cached).toBe(added);

    server.patch(CONFIGMAPS, 'default', 'x', { metadata: { labels: { app: 'web' } } });
    await waitFor(() => r.recorder.seen.length === 2);
    const update = r.recorder.seen[1]!;
    expect(update.type).toBe('update');
    expect(update.old).toBe(added);
    expect(update.cached).toBe(update.obj);
    expect((update.obj as PartialObjectMetadata).metadata.labels).toEqual({ app: 'web' });

    server.delete(CONFIGMAPS, 'default', 'x');
    await waitFor(() => r.recorder.seen.length === 3);
    const deletion = r.recorder.seen[2]!;
    expect(deletion.obj).not.toBeInstanceOf(DeletedFinalStateUnknown);
    expect(deletion.cached).toBeUndefined();
    expect(r.informer.list()).toEqual([]);
    expect(r.informer.lastSyncResourceVersion()).toBe(server.currentResourceVersion());
  });

  it('caches the metadata of watched objects only: no spec, status, managedFields or last-applied annotation', async () => {
    server.registerResource({ ...WEBAPPS, kind: 'WebApp', namespaced: true });
    const r = await runSynced(WEBAPPS);
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'uid-owner', controller: true };
    server.create(WEBAPPS, {
      metadata: {
        name: 'blog',
        namespace: 'default',
        labels: { app: 'blog' },
        annotations: { note: 'keep', 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"replicas":3}}' },
        ownerReferences: [owner],
        finalizers: ['demo.protean.dev/cleanup'],
      },
      spec: { replicas: 3, image: 'blog:1' },
      status: { ready: false },
    });
    await waitFor(() => r.recorder.seen.length === 1);
    const stored = server.get(WEBAPPS, 'default', 'blog')!;
    expect(stored.metadata.managedFields).toBeDefined();
    const expected = {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: {
        name: 'blog',
        namespace: 'default',
        uid: stored.metadata.uid,
        resourceVersion: stored.metadata.resourceVersion,
        generation: 1,
        creationTimestamp: stored.metadata.creationTimestamp,
        labels: { app: 'blog' },
        annotations: { note: 'keep' },
        ownerReferences: [owner],
        finalizers: ['demo.protean.dev/cleanup'],
      },
    };
    expect(r.informer.get({ namespace: 'default', name: 'blog' })).toEqual(expected);

    server.patch(WEBAPPS, 'default', 'blog', { spec: { replicas: 4 } });
    await waitFor(() => r.recorder.seen.length === 2);
    const updated = server.get(WEBAPPS, 'default', 'blog')!;
    expect(r.recorder.seen[1]!.obj).toEqual({
      ...expected,
      metadata: { ...expected.metadata, generation: 2, resourceVersion: updated.metadata.resourceVersion },
    });
  });
});

describe('KubernetesListWatch: relists', () => {
  it('relists at once from the most recent version when its watch is refused with 410, then watches from the relist', async () => {
    const r = await runSynced();
    await createSeen(r, 'progress');
    server.faults.failNext(1, 410, { match: isWatch });
    server.faults.closeWatches();
    await waitFor(() => lists().length === 2 && watches().length === 3 && server.openWatchCount() === 1);

    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toBeInstanceOf(KubernetesRequestError);
    expect(r.errors[0]).toMatchObject({ status: 410, expired: true, verb: 'WATCH' });
    const relist = lists()[1]!;
    expect(relist.query.has('resourceVersion')).toBe(false);
    expect(watches()[2]!.query.get('resourceVersion')).toBe(r.informer.lastSyncResourceVersion());
    expect(r.informer.lastSyncResourceVersion()).toBe(server.currentResourceVersion());
    // Routine: no backoff, and the relist found nothing new to tell.
    expect(clock.sleeps()).toEqual([]);
    expect(r.recorder.summary()).toEqual(['add progress']);
  });

  it('relists when the watch stream itself reports 410 in an ERROR event', async () => {
    const r = await runSynced();
    await createSeen(r, 'progress');
    // A write elsewhere moves the server on; forgetting history then leaves the informer's version behind.
    server.create(SECRETS, { metadata: { name: 's', namespace: 'default' } });
    server.faults.expireAll();
    server.faults.closeWatches();
    await waitFor(() => lists().length === 2 && server.openWatchCount() === 1);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ status: 410, expired: true });
    expect(r.errors[0]!.message).toContain('ERROR event 410');
    expect(lists()[1]!.query.has('resourceVersion')).toBe(false);
    expect(r.informer.lastSyncResourceVersion()).toBe(server.currentResourceVersion());
  });

  it('tells a relist as changes: a tombstone for what vanished, updates for what changed, adds for what is new, nothing for the rest', async () => {
    for (const name of ['keep', 'change', 'gone']) server.create(CONFIGMAPS, { metadata: { name, namespace: 'default' } });
    const r = await runSynced();
    await createSeen(r, 'progress');
    const before = new Map(r.informer.list().map((o) => [o.metadata.name, o]));
    const from = r.recorder.seen.length;

    server.faults.failNext(1, 410, { match: isWatch });
    server.faults.closeWatches();
    // In the same turn: the closed watch cannot see these, the relist will.
    server.delete(CONFIGMAPS, 'default', 'gone');
    server.patch(CONFIGMAPS, 'default', 'change', { metadata: { labels: { changed: 'yes' } } });
    server.create(CONFIGMAPS, { metadata: { name: 'new', namespace: 'default' } });
    await waitFor(() => lists().length === 2 && r.recorder.seen.length === from + 3);

    expect(r.recorder.summary(from)).toEqual(['delete tombstone:default/gone', 'update change', 'add new']);
    const [tombstone, update, add] = r.recorder.seen.slice(from);
    expect((tombstone!.obj as DeletedFinalStateUnknown).obj).toBe(before.get('gone'));
    expect(tombstone!.cached).toBeUndefined();
    expect(update!.old).toBe(before.get('change'));
    expect(update!.cached).toBe(update!.obj);
    expect(add).toMatchObject({ initial: false, syncedAtDelivery: true });
    expect(add!.cached).toBe(add!.obj);
    // Unchanged objects keep the very instance handlers already hold.
    expect(r.informer.get({ namespace: 'default', name: 'keep' })).toBe(before.get('keep'));
    expect(r.informer.get({ namespace: 'default', name: 'progress' })).toBe(before.get('progress'));
  });

  it('after another watch failure, relists from its last synced version, unpaginated, once the backoff has passed', async () => {
    const r = await runSynced();
    await createSeen(r, 'progress');
    const synced = r.informer.lastSyncResourceVersion();
    server.faults.failNext(1, 500, { match: isWatch });
    server.faults.closeWatches();
    await waitFor(() => clock.sleeps().length === 1);
    expect(clock.sleeps()).toEqual([BACKOFF_MS]);
    expect(r.errors).toMatchObject([{ status: 500 }]);
    expect(lists()).toHaveLength(1);

    clock.advance(BACKOFF_MS);
    await waitFor(() => lists().length === 2 && server.openWatchCount() === 1);
    const relist = lists()[1]!;
    expect(relist.query.get('resourceVersion')).toBe(synced);
    expect(relist.query.has('limit')).toBe(false);
  });
});

describe('KubernetesListWatch: reconnects', () => {
  it('watches again at once from its last version when a watch that delivered events closes, without relisting', async () => {
    const r = await runSynced();
    await createSeen(r, 'x');
    server.faults.closeWatches();
    await waitFor(() => watches().length === 2 && server.openWatchCount() === 1);
    expect(watches()[1]!.query.get('resourceVersion')).toBe(server.get(CONFIGMAPS, 'default', 'x')!.metadata.resourceVersion);
    expect(lists()).toHaveLength(1);
    expect(r.errors).toEqual([]);
    expect(clock.sleeps()).toEqual([]);
    await createSeen(r, 'y');
  });

  it('paces the next watch with a growing backoff when watches close at once without any event, until stopped', async () => {
    const r = await runSynced();
    server.faults.closeWatches();
    await waitFor(() => clock.sleeps().length === 1);
    expect(clock.sleeps()).toEqual([BACKOFF_MS]);
    expect(watches()).toHaveLength(1);
    clock.advance(BACKOFF_MS);
    await waitFor(() => watches().length === 2 && server.openWatchCount() === 1);

    server.faults.closeWatches();
    await waitFor(() => clock.sleeps().length === 2);
    expect(clock.sleeps()).toEqual([BACKOFF_MS, 2 * BACKOFF_MS]);
    clock.advance(2 * BACKOFF_MS - 1);
    await turns();
    expect(watches()).toHaveLength(2);
    clock.advance(1);
    await waitFor(() => watches().length === 3 && server.openWatchCount() === 1);
    expect(lists()).toHaveLength(1);

    // Stopped during the next sleep: its timer goes, and no watch follows.
    server.faults.closeWatches();
    await waitFor(() => clock.sleeps().length === 3);
    r.abort.abort();
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(8 * BACKOFF_MS);
    await turns();
    expect(watches()).toHaveLength(3);
  });
});

describe('KubernetesListWatch: bookmarks', () => {
  it('moves its resourceVersion on a bookmark without telling the handlers, and counts the bookmark as progress', async () => {
    const r = await runSynced();
    server.create(SECRETS, { metadata: { name: 's', namespace: 'default' } });
    const bumped = server.currentResourceVersion();
    expect(r.informer.lastSyncResourceVersion()).not.toBe(bumped);
    serverClock.advance(BOOKMARK_MS);
    await waitFor(() => r.informer.lastSyncResourceVersion() === bumped);
    expect(r.recorder.seen).toEqual([]);

    server.faults.closeWatches();
    await waitFor(() => watches().length === 2);
    expect(watches()[1]!.query.get('resourceVersion')).toBe(bumped);
    expect(clock.sleeps()).toEqual([]);
    expect(lists()).toHaveLength(1);
  });
});

describe('KubernetesListWatch: stop', () => {
  it('closes its watch and leaves no timer when its signal aborts, and delivers nothing after', async () => {
    const r = await runSynced();
    const requests = server.requests().length;
    r.abort.abort();
    expect(r.informer.isStopped()).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    await waitFor(() => server.openWatchCount() === 0);
    server.create(CONFIGMAPS, { metadata: { name: 'late', namespace: 'default' } });
    await turns();
    expect(r.recorder.seen).toEqual([]);
    expect(server.requests()).toHaveLength(requests);
    expect(r.errors).toEqual([]);
  });

  it('stopped while listing, never syncs and never watches', async () => {
    server.create(CONFIGMAPS, { metadata: { name: 'x', namespace: 'default' } });
    server.faults.stall(true);
    const r = run();
    await waitFor(() => lists().length === 1);
    r.abort.abort();
    server.faults.stall(false);
    await turns();
    expect(r.informer.hasSynced()).toBe(false);
    expect(r.recorder.seen).toEqual([]);
    expect(watches()).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
    expect(r.errors).toEqual([]);
  });
});
