import * as diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { apiStatusOf, DeletedFinalStateUnknown } from '@protean/core';
import { KubernetesRequestError } from '@protean/watch-manager';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import {
  CONFIGMAPS,
  createConfigMaps,
  FAST,
  listRequests,
  runInformer,
  waitForValue,
  watchRequests,
  WEBAPP_DEF,
  WEBAPPS,
  type RunningInformer,
} from './informerHarness.js';

const CM_PATH = '/api/v1/configmaps';
const isWatch = (r: { query: URLSearchParams }): boolean => r.query.get('watch') === 'true';

let server: InMemoryApiServer;
const running: RunningInformer[] = [];

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});

afterEach(async () => {
  for (const r of running.splice(0)) r.abort.abort();
  await server.stop();
});

async function startSynced(...args: Parameters<typeof runInformer> extends [unknown, ...infer R] ? R : never): Promise<RunningInformer> {
  const r = runInformer(server, ...args);
  running.push(r);
  await waitForValue(() => r.informer.hasSynced(), 'sync');
  await waitForValue(() => server.openWatchCount() > 0, 'the watch to open');
  return r;
}

const statusOf = (e: Error): number | undefined => apiStatusOf(e)?.code;

describe('KubernetesInformer reconnects', () => {
  it('re-watches from the last resourceVersion after every watch is dropped mid-stream, losing no event', async () => {
    const { recorder, errors } = await startSynced(CONFIGMAPS);
    server.create(CONFIGMAPS, { metadata: { name: 'before', namespace: 'default' } });
    await waitForValue(() => recorder.of('add', 'before').length === 1, 'before');
    const rvBefore = server.currentResourceVersion();
    const watches = watchRequests(server, CM_PATH).length;

    server.faults.dropWatches();
    server.create(CONFIGMAPS, { metadata: { name: 'during', namespace: 'default' } });

    await waitForValue(() => recorder.of('add', 'during').length === 1, 'the write made during the disconnect');
    const rewatch = watchRequests(server, CM_PATH)[watches]!;
    expect(rewatch.query.get('resourceVersion')).toBe(rvBefore);
    expect(listRequests(server, CM_PATH)).toHaveLength(1);
    expect(errors.some((e) => e instanceof KubernetesRequestError && e.reason === 'ConnectionReset')).toBe(true);
  });

  it('re-watches without relisting after a clean close', async () => {
    const { recorder } = await startSynced(CONFIGMAPS);
    server.faults.closeWatches();
    server.create(CONFIGMAPS, { metadata: { name: 'after-close', namespace: 'default' } });
    await waitForValue(() => recorder.of('add', 'after-close').length === 1, 'event after the close');
    expect(listRequests(server, CM_PATH)).toHaveLength(1);
    expect(watchRequests(server, CM_PATH).length).toBeGreaterThanOrEqual(2);
  });

  it('relists from "" after 410 Expired and delivers tombstones for objects deleted while disconnected', async () => {
    createConfigMaps(server, 4);
    const { recorder } = await startSynced(CONFIGMAPS);
    const watches = watchRequests(server, CM_PATH).length;
    server.faults.stall(true);
    server.faults.dropWatches();
    await waitForValue(() => watchRequests(server, CM_PATH).length > watches, 'the re-watch to be parked');
    server.delete(CONFIGMAPS, 'team-a', 'cm-0');
    server.delete(CONFIGMAPS, 'team-b', 'cm-1');
    server.patch(CONFIGMAPS, 'team-a', 'cm-2', { metadata: { labels: { app: 'changed' } } });
    server.create(CONFIGMAPS, { metadata: { name: 'new', namespace: 'team-a' } });
    server.faults.expireAll();
    server.faults.stall(false);

    await waitForValue(() => recorder.of('delete').length === 2, 'two tombstones');
    for (const d of recorder.of('delete')) {
      expect(d.obj).toBeInstanceOf(DeletedFinalStateUnknown);
      expect((d.obj as DeletedFinalStateUnknown).obj?.metadata.name).toBe(d.name);
    }
    expect(
      recorder
        .of('delete')
        .map((d) => (d.obj as DeletedFinalStateUnknown).key)
        .sort(),
    ).toEqual(['team-a/cm-0', 'team-b/cm-1']);
    await waitForValue(() => recorder.of('add', 'new').length === 1, 'the object created while disconnected');
    expect(recorder.of('update', 'cm-2')[0]!.old!.metadata.labels).toEqual({ app: 'demo', idx: '2' });
    expect(recorder.of('update', 'cm-3')).toHaveLength(0);
    const relist = listRequests(server, CM_PATH)[1]!;
    expect(relist.query.has('resourceVersion')).toBe(false);
  });

  it('restarts a paginated list from scratch when its continue token expires', async () => {
    createConfigMaps(server, 1200);
    server.faults.failNext(1, 410, { match: (r) => r.query.has('continue') });
    const r = runInformer(server, CONFIGMAPS);
    running.push(r);
    await waitForValue(() => r.informer.hasSynced(), 'sync');
    expect(r.recorder.of('add')).toHaveLength(1200);
    const lists = listRequests(server, CM_PATH);
    expect(lists).toHaveLength(5);
    expect(lists[2]!.query.has('continue')).toBe(false);
    expect(lists[2]!.query.has('resourceVersion')).toBe(false);
  });

  it('retries a failing LIST with backoff until it succeeds', async () => {
    createConfigMaps(server, 2);
    server.faults.failNext(3, 500, { match: (r) => !isWatch(r) && r.path === CM_PATH });
    const r = runInformer(server, CONFIGMAPS);
    running.push(r);
    await waitForValue(() => r.informer.hasSynced(), 'sync');
    expect(r.errors.map(statusOf)).toEqual([500, 500, 500]);
    // A 5xx asks whether the server is down (one /readyz probe, at once): it answers ready, so the backoff stands.
    expect(server.requests().filter((q) => q.path === '/readyz').length).toBeGreaterThanOrEqual(1);
    expect(r.clock.delays.filter((d) => d !== FAST.inactivityTimeoutMs && d !== 0)).toEqual([20, 40, 80]);
    expect(r.recorder.of('add')).toHaveLength(2);
  });
});

describe('KubernetesInformer failure handling', () => {
  it('backs off while its resource is not served, warns once, and recovers when it is served again', async () => {
    server.registerResource(WEBAPP_DEF);
    server.create(WEBAPPS, { metadata: { name: 'w1', namespace: 'default' }, spec: {} });
    const { recorder, errors, logs, clock } = await startSynced(WEBAPPS);
    const path = '/apis/demo.protean.dev/v1/webapps';
    const delaysBefore = clock.delays.length;

    server.unregisterResource(WEBAPPS);
    await waitForValue(() => errors.filter((e) => statusOf(e) === 404).length >= 7, 'seven 404s');
    // The source's kind availability waits on the same clock (a CRD that would serve the kind: none here, as the
    // resource is registered without one), and so does its /readyz probe (at once); the informer's own sleeps are the
    // rest.
    const availabilityWaits = new Set([60_000, 3_000, 0]);
    const sleeps = clock.delays.slice(delaysBefore).filter((d) => d !== FAST.inactivityTimeoutMs && !availabilityWaits.has(d));
    // One sleep per failed request, growing to the not-served cap: no hot loop.
    expect(sleeps.join(',')).toContain('20,40,80,160,160');
    const failed = server.requests().filter((r) => r.path === path).length;
    expect(failed).toBeLessThanOrEqual(2 + sleeps.length);
    expect(logs.filter((l) => l.level === 40)).toHaveLength(1);

    server.registerResource(WEBAPP_DEF);
    server.create(WEBAPPS, { metadata: { name: 'w2', namespace: 'default' }, spec: {} });
    await waitForValue(() => recorder.of('add', 'w2').length === 1, 'the object created after the resource came back');
    await waitForValue(() => recorder.of('delete', 'w1').length === 1, 'a tombstone for the object lost with the resource');
    expect(logs.filter((l) => l.level === 40)).toHaveLength(1);
    expect(logs.some((l) => l.level === 30 && l.msg.includes('recovered'))).toBe(true);
  });

  it('honours Retry-After on 429 before watching again', async () => {
    const { recorder, errors, clock } = await startSynced(CONFIGMAPS);
    server.faults.failNext(1, 429, { retryAfterSeconds: 1, match: isWatch });
    server.faults.closeWatches();
    await waitForValue(() => errors.some((e) => statusOf(e) === 429), 'the 429');
    expect((errors.find((e) => statusOf(e) === 429) as KubernetesRequestError).retryAfterMs).toBe(1000);
    server.create(CONFIGMAPS, { metadata: { name: 'after-429', namespace: 'default' } });
    await waitForValue(() => recorder.of('add', 'after-429').length === 1, 'event after the 429');
    expect(clock.delays).toContain(1000);
    const watches = watchRequests(server, CM_PATH);
    const rejected = watches[watches.length - 2]!;
    const retried = watches[watches.length - 1]!;
    expect(retried.at - rejected.at).toBeGreaterThanOrEqual(990);
    expect(listRequests(server, CM_PATH)).toHaveLength(1);
  });

  it('re-reads credentials from the KubeConfig on reconnect', async () => {
    server.setAcceptedTokens(['token-1']);
    const kubeConfig = server.kubeConfig({ token: 'token-1' });
    const { recorder, errors } = await startSynced(CONFIGMAPS, { kubeConfig });
    kubeConfig.users = kubeConfig.users.map((u) => ({ ...u, token: 'token-2' }));
    server.setAcceptedTokens(['token-2']);
    server.faults.dropWatches();
    server.create(CONFIGMAPS, { metadata: { name: 'rotated', namespace: 'default' } });
    await waitForValue(() => recorder.of('add', 'rotated').length === 1, 'event after the rotation');
    expect(errors.filter((e) => statusOf(e) === 401)).toHaveLength(0);
  });

  it('detects a half-open connection by inactivity and watches again', async () => {
    const { recorder, errors } = await startSynced(CONFIGMAPS, { inactivityTimeoutMs: 200 });
    server.faults.stall(true);
    await waitForValue(
      () => errors.find((e) => e instanceof KubernetesRequestError && e.reason === 'InactivityTimeout'),
      'the inactivity timeout',
    );
    server.faults.stall(false);
    server.create(CONFIGMAPS, { metadata: { name: 'after-stall', namespace: 'default' } });
    await waitForValue(() => recorder.of('add', 'after-stall').length === 1, 'event after the stall');
    expect(listRequests(server, CM_PATH)).toHaveLength(1);
  });
});

describe('KubernetesListWatch stop', () => {
  it('closes every socket and timer when its signal aborts', async () => {
    const sockets: Socket[] = [];
    const onSocket = (msg: unknown): void => {
      sockets.push((msg as { socket: Socket }).socket);
    };
    diagnostics.subscribe('net.client.socket', onSocket);
    try {
      const { informer, abort, clock } = await startSynced(CONFIGMAPS);
      expect(sockets.some((s) => !s.destroyed)).toBe(true);
      abort.abort();
      expect(informer.isStopped()).toBe(true);
      await waitForValue(() => server.openWatchCount() === 0, 'the server to see the watch closed');
      await waitForValue(() => sockets.every((s) => s.destroyed), 'every client socket closed');
      expect(clock.pendingTimers()).toBe(0);
    } finally {
      diagnostics.unsubscribe('net.client.socket', onSocket);
    }
  });

  it('stops while backing off, leaving no timer', async () => {
    server.faults.failNext(100, 503);
    const r = runInformer(server, CONFIGMAPS, { backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } });
    await waitForValue(() => r.errors.length === 1, 'the first failure');
    await waitForValue(() => r.clock.delays.includes(60_000), 'the backoff sleep');
    r.abort.abort();
    expect(r.clock.pendingTimers()).toBe(0);
    expect(r.informer.hasSynced()).toBe(false);
  });
});
