import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InMemoryApiServer } from './InMemoryApiServer.js';
import { waitFor } from '@protean/core/testing';
import { TestWatch } from './TestWatch.testkit.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };

let server: InMemoryApiServer;
const watches: TestWatch[] = [];

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});
afterEach(async () => {
  for (const w of watches.splice(0)) w.close();
  await server.stop();
});

async function watch(path: string): Promise<TestWatch> {
  const w = new TestWatch(`${server.url}${path}`);
  watches.push(w);
  await w.ready;
  return w;
}

describe('fault hooks', () => {
  it('dropWatches resets every watch connection', async () => {
    const a = await watch('/api/v1/configmaps?watch=true');
    const b = await watch('/api/v1/namespaces?watch=true');
    expect(server.openWatchCount()).toBe(2);
    server.faults.dropWatches();
    expect(await a.waitForOutcome()).toBe('error');
    expect(await b.waitForOutcome()).toBe('error');
    expect(server.openWatchCount()).toBe(0);
  });

  it('closeWatches ends every watch cleanly', async () => {
    const a = await watch('/api/v1/configmaps?watch=true');
    server.faults.closeWatches();
    expect(await a.waitForOutcome()).toBe('end');
    expect(server.openWatchCount()).toBe(0);
  });

  it('failNext answers the next N requests with a Status and Retry-After, then recovers', async () => {
    server.faults.failNext(2, 503, { retryAfterSeconds: 3 });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.url}/api/v1/configmaps`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('3');
      expect(await res.json()).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'ServiceUnavailable',
        code: 503,
        details: { retryAfterSeconds: 3 },
      });
    }
    expect((await fetch(`${server.url}/api/v1/configmaps`)).status).toBe(200);
  });

  it('failNext with match only fails and counts matching requests', async () => {
    server.faults.failNext(1, 429, { match: (r) => r.query.get('watch') === 'true' });
    expect((await fetch(`${server.url}/api/v1/configmaps`)).status).toBe(200);
    const res = await fetch(`${server.url}/api/v1/configmaps?watch=true`);
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ reason: 'TooManyRequests', code: 429 });
    const w = await watch('/api/v1/configmaps?watch=true');
    expect(w.status).toBe(200);
  });

  it('stall holds requests unanswered (client timeouts fire) and silences watches until lifted', async () => {
    const w = await watch('/api/v1/configmaps?watch=true');
    server.faults.stall(true);
    const timedOut = await fetch(`${server.url}/api/v1/configmaps`, { signal: AbortSignal.timeout(50) }).then(
      () => 'answered',
      (e: Error) => e.name,
    );
    expect(timedOut).toBe('TimeoutError');
    server.create(CM, { metadata: { name: 's', namespace: 'x' } });
    const before = server.requests().length;
    const pending = fetch(`${server.url}/api/v1/namespaces/x/configmaps/s`);
    await waitFor(() => server.requests().length === before + 1, { message: 'the stalled GET to arrive' });
    expect(w.events).toEqual([]);
    server.faults.stall(false);
    expect((await pending).status).toBe(200);
    await w.waitForEvents(1);
    expect(w.events[0]?.type).toBe('ADDED');
  });

  it('expireAll makes every older resourceVersion answer 410 Expired', async () => {
    server.create(CM, { metadata: { name: 'a', namespace: 'x' } });
    const rv = server.currentResourceVersion();
    server.create(CM, { metadata: { name: 'b', namespace: 'x' } });
    server.faults.expireAll();
    const w = await watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv}`);
    await w.waitForEvents(1);
    expect(w.events[0]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    const fresh = await watch(`/api/v1/configmaps?watch=true&resourceVersion=${server.currentResourceVersion()}`);
    server.create(CM, { metadata: { name: 'c', namespace: 'x' } });
    await fresh.waitForEvents(1);
    expect(fresh.events[0]?.type).toBe('ADDED');
  });

  it('timeOutStreamingLists ends the next streaming lists with an in-stream 504 Too large resource version; plain watches and later streams are served', async () => {
    server.create(CM, { metadata: { name: 'a', namespace: 'x' } });
    const rv = server.currentResourceVersion();
    const stream = '/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
    server.faults.timeOutStreamingLists(1);
    const plain = await watch('/api/v1/configmaps?watch=true');
    await plain.waitForEvents(1);
    expect(plain.events[0]?.type).toBe('ADDED');

    const lagging = await watch(stream);
    expect(await lagging.waitForOutcome()).toBe('end');
    expect(lagging.events).toEqual([
      {
        type: 'ERROR',
        object: expect.objectContaining({
          kind: 'Status',
          status: 'Failure',
          code: 504,
          reason: 'Timeout',
          message: `Timeout: Too large resource version: ${rv}, current: ${Number(rv) - 1}`,
          details: expect.objectContaining({ causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] }),
        }),
      },
    ]);

    const served = await watch(stream);
    await served.waitForEvents(2);
    expect(served.events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(() => server.faults.timeOutStreamingLists(-1)).toThrow('timeOutStreamingLists: count must be a non-negative integer, got -1');
  });
});

describe('authentication', () => {
  it('answers 401 Status to tokens not accepted, and the KubeConfig carries the token for applyToHTTPSOptions', async () => {
    server.setAcceptedTokens(['rotated']);
    const denied = await fetch(`${server.url}/api/v1/configmaps`, { headers: { authorization: 'Bearer protean-test-token' } });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
    const opts: { headers?: Record<string, string> } = {};
    await server.kubeConfig({ token: 'rotated' }).applyToHTTPSOptions(opts);
    const status = await new Promise<number>((resolve, reject) => {
      request(`${server.url}/api/v1/configmaps`, { headers: opts.headers, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(200);
    server.setAcceptedTokens(undefined);
    expect((await fetch(`${server.url}/api/v1/configmaps`)).status).toBe(200);
  });
});

describe('introspection and lifecycle', () => {
  it('logs every request with method, path, query and Accept', async () => {
    await fetch(`${server.url}/api/v1/configmaps?limit=5`, { headers: { accept: 'application/json' } });
    expect(server.requests()).toEqual([
      {
        method: 'GET',
        path: '/api/v1/configmaps',
        query: new URLSearchParams('limit=5'),
        accept: 'application/json',
        at: expect.any(Number),
      },
    ]);
  });

  it('stop() ends open watches and closes the port', async () => {
    const w = await watch('/api/v1/configmaps?watch=true');
    const url = server.url;
    await server.stop();
    expect(await w.waitForOutcome()).not.toBe('open');
    expect(server.openWatchCount()).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
