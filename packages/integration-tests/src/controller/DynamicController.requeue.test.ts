import { afterEach, describe, expect, it } from '@jest/globals';
import { gvrKey, requeue, type GroupVersionResource, type Handler, type ObjectIdentifiers } from '@protean/core';
import {
  createTestController,
  FakeClock,
  FakeStatusError,
  HandlerRecorder,
  LogRecorder,
  ObserverRecorder,
  type TestController,
} from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const item: ObjectIdentifiers = { gvr: parent, namespace: 'ns', name: 'a' };

/** A handler whose n-th call (from 0) does `steps[n]`; calls past the list succeed. */
function scripted(steps: readonly (() => Promise<void>)[]): HandlerRecorder {
  const recorder = new HandlerRecorder();
  recorder.impl = () => (steps[recorder.count() - 1] ?? (() => Promise.resolve()))();
  return recorder;
}

const fail = (err: unknown) => () => Promise.reject(err);

describe('DynamicController requeue outcomes', () => {
  let t: TestController;
  let clock: FakeClock;
  let observer: ObserverRecorder;
  let logs: LogRecorder;

  async function run(handler: Handler, config: { queueMaxRetries?: number } = {}): Promise<void> {
    clock = new FakeClock();
    observer = new ObserverRecorder();
    logs = new LogRecorder('error');
    t = createTestController({
      logFailures: false,
      clock,
      observer,
      logger: logs.logger,
      config: { minRetryDelayMs: 100, maxRetryDelayMs: 10_000, queueMaxRetries: 2, ...config },
    });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    await t.start();
    await t.register(parent, handler);
  }

  afterEach(async () => {
    await t.dispose();
  });

  it('forgets an item whose handler succeeds, resetting its failure count', async () => {
    const h = scripted([fail(new Error('transient'))]);
    await run(h.handler);
    await t.waitFor(() => t.queue.numRequeues(item) === 1);
    await clock.advanceAsync(100);
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['error', 'success']);
    expect(t.queue.numRequeues(item)).toBe(0);
  });

  it('forgets an item whose handler rejects with NoRequeue and never retries it', async () => {
    const h = scripted([fail(new Error('transient')), fail(requeue.none(new Error('give up')))]);
    await run(h.handler);
    await t.waitFor(() => t.queue.numRequeues(item) === 1);
    await clock.advanceAsync(100);
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['error', 'no_requeue']);
    expect(t.queue.numRequeues(item)).toBe(0);
    await clock.advanceAsync(60_000);
    expect(h.count()).toBe(2);
  });

  it('re-runs an item at once, without backoff, on RequeueNeeded', async () => {
    const h = scripted([fail(requeue.needed())]);
    await run(h.handler);
    // The clock never moves: a rate-limited re-add would wait for it.
    await t.waitFor(() => h.count() === 2);
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['requeue', 'success']);
    expect(t.queue.numRequeues(item)).toBe(0);
  });

  it('re-runs an item after the delay of RequeueNeededAfter, with its failure count reset', async () => {
    const h = scripted([fail(new Error('transient')), fail(requeue.neededAfter(new Error('polling'), 5_000))]);
    await run(h.handler);
    await t.waitFor(() => t.queue.numRequeues(item) === 1);
    await clock.advanceAsync(100);
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['error', 'requeue_after']);
    expect(t.queue.numRequeues(item)).toBe(0);
    await clock.advanceAsync(4_999);
    expect(h.count()).toBe(2);
    await clock.advanceAsync(1);
    await t.waitFor(() => h.count() === 3);
  });

  it('finds a requeue signal wrapped as the cause of another error', async () => {
    const h = scripted([fail(new Error('wrapped', { cause: requeue.needed() }))]);
    await run(h.handler);
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['requeue', 'success']);
  });

  it('forgets an item whose handler fails with a NotFound naming its instance, without retrying', async () => {
    const h = scripted([fail(new FakeStatusError(404, 'webapps "a" not found', 'a'))]);
    await run(h.handler);
    await t.waitFor(() => observer.outcomes().length === 1);
    expect(observer.outcomes()).toEqual(['not_found']);
    expect(t.queue.numRequeues(item)).toBe(0);
    await clock.advanceAsync(60_000);
    expect(h.count()).toBe(1);
    expect(t.controller.queueLength()).toBe(0);
  });

  it('retries a handler failing with a NotFound of something else while its instance exists, and forgets it once it is gone', async () => {
    logs = new LogRecorder('warn');
    clock = new FakeClock();
    t = createTestController({ logFailures: false, logger: logs.logger, clock });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    const h = new HandlerRecorder(async (req) => {
      if (req.name === 'b') {
        if (t.source.get(parent, req) !== undefined) t.source.delete(parent, req);
        await t.waitFor(() => t.controller.informer(parent)?.get(req) === undefined);
      }
      throw new FakeStatusError(404, 'configmaps "child" not found', 'child');
    });
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.keys().includes('ns/a') && h.keys().includes('ns/b') && t.controller.queueLength() === 0);
    // a: still there, so the 404 was about something else: retried with backoff, like any failure.
    expect(logs.find('handler failed; retrying with backoff').map((r) => r['item'])).toEqual([`${gvrKey(parent)}|ns/a`]);
    // b: gone from the cache, so nothing to retry (its deletion ran one more pass, which also found it gone).
    const bPasses = h.keys().filter((k) => k === 'ns/b').length;
    await clock.advanceAsync(60_000);
    await t.waitFor(() => h.keys().filter((k) => k === 'ns/a').length >= 2);
    expect(h.keys().filter((k) => k === 'ns/b')).toHaveLength(bPasses);
  });

  it('keeps the event loop turning while a handler requeues itself at once, forever', async () => {
    t = createTestController({ logFailures: false });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const h = new HandlerRecorder(() => Promise.reject(requeue.needed()));
    await t.start();
    await t.register(parent, h.handler);
    // Starved by an endless microtask chain, neither a macrotask nor a timer would ever run.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await t.waitFor(() => h.count() > 100);
    await t.stop();
    const calls = h.count();
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    expect(h.count()).toBe(calls);
  });

  it('retries a failing item with exponential backoff, then drops it after queueMaxRetries with an error log', async () => {
    const h = new HandlerRecorder(() => Promise.reject(new Error('boom')));
    await run(h.handler);
    await t.waitFor(() => h.count() === 1);
    await clock.advanceAsync(99);
    expect(h.count()).toBe(1);
    await clock.advanceAsync(1); // first retry after minRetryDelayMs
    await t.waitFor(() => h.count() === 2);
    await clock.advanceAsync(199);
    expect(h.count()).toBe(2);
    await clock.advanceAsync(1); // second retry after twice that
    await t.waitFor(() => observer.outcomes().length === 3);
    expect(observer.outcomes()).toEqual(['error', 'error', 'dropped']);
    expect(t.queue.numRequeues(item)).toBe(0);
    await clock.advanceAsync(60_000);
    expect(h.count()).toBe(3);

    const dropped = logs.find('dropping demo.protean.dev/v1/webapps|ns/a');
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ level: 50, item: 'demo.protean.dev/v1/webapps|ns/a', retries: 2 });
    expect(observer.handlerErrors).toHaveLength(3);
  });

  it('drops a failing item at once when queueMaxRetries is 0', async () => {
    const h = new HandlerRecorder(() => Promise.reject(new Error('boom')));
    await run(h.handler, { queueMaxRetries: 0 });
    await t.waitFor(() => observer.outcomes().length === 1);
    expect(observer.outcomes()).toEqual(['dropped']);
    await clock.advanceAsync(60_000);
    expect(h.count()).toBe(1);
  });
});
