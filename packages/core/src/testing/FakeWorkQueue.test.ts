import { describe, expect, it } from '@jest/globals';
import { type ObjectIdentifiers, type QueueGetResult } from '../index.js';
import { workItemKey } from '../controller/workItemKey.js';
import { FakeClock, flushMicrotasks } from './FakeClock.js';
import { FakeRateLimiter } from './FakeRateLimiter.js';
import { FakeWorkQueue } from './FakeWorkQueue.js';

async function take<T>(queue: FakeWorkQueue<T>): Promise<T> {
  const next = await queue.get();
  if (next.shutdown) throw new Error('queue shut down');
  return next.item;
}

describe('FakeWorkQueue', () => {
  it('hands items out first in, first out, and collapses an item added while queued', async () => {
    const queue = new FakeWorkQueue<string>();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.len()).toBe(2);
    expect(queue.queued()).toEqual(['a', 'b']);
    expect(await take(queue)).toBe('a');
    expect(await take(queue)).toBe('b');
    expect(queue.len()).toBe(0);
    expect(queue.processing()).toEqual(['a', 'b']);
  });

  it('never hands out a key twice at a time: an item added while processing comes back once, on done', async () => {
    const queue = new FakeWorkQueue<ObjectIdentifiers>({ key: workItemKey });
    const gvr = { group: '', version: 'v1', resource: 'configmaps' };
    queue.add({ gvr, namespace: 'ns', name: 'a' });
    const first = await take(queue);
    queue.add({ gvr, namespace: 'ns', name: 'a' });
    queue.add({ gvr, namespace: 'ns', name: 'a' });
    expect(queue.len()).toBe(0);
    let second: QueueGetResult<ObjectIdentifiers> | undefined;
    void queue.get().then((r) => (second = r));
    await flushMicrotasks();
    expect(second).toBeUndefined();
    queue.done(first);
    await flushMicrotasks();
    expect(second).toMatchObject({ shutdown: false, item: { name: 'a' } });
    expect(queue.len()).toBe(0);
    queue.done(first);
    expect(queue.processing()).toEqual([]);
  });

  it('serves waiting getters in order, and ignores done for an item it did not hand out', async () => {
    const queue = new FakeWorkQueue<string>();
    const got: string[] = [];
    void take(queue).then((x) => got.push(`1:${x}`));
    void take(queue).then((x) => got.push(`2:${x}`));
    queue.done('x');
    queue.add('x');
    queue.add('y');
    await flushMicrotasks();
    expect(got).toEqual(['1:x', '2:y']);
  });

  it('adds an item after its delay on the injected clock, keeping the earlier ready time', async () => {
    const clock = new FakeClock();
    const queue = new FakeWorkQueue<string>({ clock });
    queue.addAfter('a', 100);
    queue.addAfter('a', 300);
    queue.addAfter('b', 50);
    queue.addAfter('now', 0);
    expect(queue.queued()).toEqual(['now']);
    expect(queue.waiting()).toEqual([
      { item: 'b', readyAt: 50 },
      { item: 'a', readyAt: 100 },
    ]);
    clock.advance(99);
    expect(queue.queued()).toEqual(['now', 'b']);
    clock.advance(1);
    expect(queue.queued()).toEqual(['now', 'b', 'a']);
    expect(clock.pendingTimers()).toBe(0);
    queue.addAfter('a', 10);
    queue.addAfter('a', 5);
    clock.advance(5);
    expect(queue.waiting()).toEqual([]);
    expect(() => queue.addAfter('a', -1)).toThrow(RangeError);
    expect(() => queue.addAfter('a', Number.NaN)).toThrow(RangeError);
  });

  it('backs an item off exponentially per failure until forget, within its limits', () => {
    const clock = new FakeClock();
    const queue = new FakeWorkQueue<string>({ clock, limits: { minRetryDelayMs: 10, maxRetryDelayMs: 50 } });
    const delays = (): number[] => queue.calls.filter((c) => c.op === 'addRateLimited').map((c) => c.delayMs!);
    for (let i = 0; i < 4; i++) {
      queue.addRateLimited('a');
      clock.advance(1_000);
    }
    queue.addRateLimited('b');
    expect(delays()).toEqual([10, 20, 40, 50, 10]);
    expect(queue.numRequeues('a')).toBe(4);
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
    queue.addRateLimited('a');
    expect(delays().at(-1)).toBe(10);
    expect(
      queue
        .waiting()
        .map((w) => w.item)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('uses a given rate limiter instead of its own backoff', () => {
    const limiter = new FakeRateLimiter<string>({ delayMs: 7, requeues: 3 });
    const queue = new FakeWorkQueue<string>({ clock: new FakeClock(), rateLimiter: limiter });
    queue.addRateLimited('a');
    queue.forget('a');
    expect(queue.waiting()).toEqual([{ item: 'a', readyAt: 7 }]);
    expect(queue.numRequeues('a')).toBe(3);
    expect(limiter.whenCalls).toEqual(['a']);
    expect(limiter.forgotten).toEqual(['a']);
  });

  it('after shutdown ignores adds, drops waiting items, still hands out queued ones, then reports shutdown', async () => {
    const clock = new FakeClock();
    const queue = new FakeWorkQueue<string>({ clock });
    queue.add('a');
    queue.addAfter('later', 10);
    queue.shutdown();
    queue.add('b');
    queue.addRateLimited('c');
    expect(queue.shuttingDown()).toBe(true);
    expect(queue.waiting()).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
    expect(await queue.get()).toEqual({ item: 'a', shutdown: false });
    expect(await queue.get()).toEqual({ shutdown: true });
  });

  it('wakes a waiting get at shutdown', async () => {
    const queue = new FakeWorkQueue<string>();
    const pending = queue.get();
    queue.shutdown();
    await expect(pending).resolves.toEqual({ shutdown: true });
  });

  it('resolves shutdownWithDrain once every handed-out item is done', async () => {
    const queue = new FakeWorkQueue<string>();
    queue.add('a');
    const a = await take(queue);
    let drained = false;
    void queue.shutdownWithDrain().then(() => (drained = true));
    await flushMicrotasks();
    expect(drained).toBe(false);
    queue.done(a);
    await flushMicrotasks();
    expect(drained).toBe(true);
    await expect(new FakeWorkQueue<string>().shutdownWithDrain()).resolves.toBeUndefined();
  });

  it('records its mutating calls in order', () => {
    const queue = new FakeWorkQueue<string>({ clock: new FakeClock() });
    queue.add('a');
    queue.addAfter('a', 5);
    queue.forget('a');
    queue.done('a');
    expect(queue.calls).toEqual([
      { op: 'add', item: 'a' },
      { op: 'addAfter', item: 'a', delayMs: 5 },
      { op: 'forget', item: 'a' },
      { op: 'done', item: 'a' },
    ]);
  });

  it('builds queues as a WorkQueueFactory, with the key and limits it is given', () => {
    const clock = new FakeClock();
    const built: FakeWorkQueue<unknown>[] = [];
    const factory = FakeWorkQueue.factory(clock, built);
    const queue = factory<{ id: string }>({
      key: (x) => x.id,
      name: 'q',
      limits: { minRetryDelayMs: 3, maxRetryDelayMs: 3, qps: 1, burst: 1 },
    });
    queue.add({ id: 'a' });
    queue.add({ id: 'a' });
    queue.addRateLimited({ id: 'b' });
    expect(built).toEqual([queue]);
    expect(built[0]!.name).toBe('q');
    expect(queue.len()).toBe(1);
    expect(built[0]!.waiting()).toEqual([{ item: { id: 'b' }, readyAt: 3 }]);
  });

  it('refuses object items without a key function', () => {
    const queue = new FakeWorkQueue<{ id: string }>();
    expect(() => queue.add({ id: 'a' })).toThrow(/key option/);
  });
});
