import { describe, expect, it } from '@jest/globals';
import { type QueueGetResult } from '@protean/core';
import { flushMicrotasks, track } from '@protean/core/testing';
import { BasicWorkQueue } from './BasicWorkQueue.js';
import type { QueuedItem, QueueStore } from './QueueStore.js';
import type { RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';
import { fairQueueKinds } from './fairQueueKinds.testkit.js';
import { priorityQueueKinds } from './priorityQueueKinds.testkit.js';

interface Req {
  readonly namespace: string;
  readonly name: string;
}
const reqKey = (r: Req): string => `${r.namespace}/${r.name}`;

type Make = <T>(options: RateLimitingWorkQueueOptions<T>) => BasicWorkQueue<T>;
// The fair queue must keep every one of these semantics, so they run against it too.
const kinds: readonly (readonly [label: string, make: Make])[] = [
  ['BasicWorkQueue', (options) => new BasicWorkQueue(options)],
  ...fairQueueKinds,
  ...priorityQueueKinds,
];

async function item<T>(p: Promise<QueueGetResult<T>>): Promise<T> {
  const result = await p;
  if (result.shutdown) throw new Error('queue unexpectedly shut down');
  return result.item;
}

describe.each(kinds)('%s', (_label, make) => {
  const strings = (): BasicWorkQueue<string> => make<string>({ key: (s) => s });
  const reqs = (): BasicWorkQueue<Req> => make<Req>({ key: reqKey });

  it('hands items out in FIFO order', async () => {
    const q = strings();
    for (const s of ['a', 'b', 'c']) q.add(s);
    expect(q.len()).toBe(3);
    expect([await item(q.get()), await item(q.get()), await item(q.get())]).toEqual(['a', 'b', 'c']);
    expect(q.len()).toBe(0);
  });

  it('collapses duplicate adds of a queued item, keeping its place', async () => {
    const q = strings();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(2);
    expect([await item(q.get()), await item(q.get())]).toEqual(['a', 'b']);
    expect(q.len()).toBe(0);
  });

  it('uses the key function as identity and hands out the first queued value', async () => {
    const q = reqs();
    const first = { namespace: 'ns', name: 'a' };
    q.add(first);
    q.add({ namespace: 'ns', name: 'a' });
    q.add({ namespace: 'other', name: 'a' });
    expect(q.len()).toBe(2);
    expect(await item(q.get())).toBe(first);
  });

  it('re-queues an item added while it is processing, once, after done()', async () => {
    const q = strings();
    q.add('a');
    const a = await item(q.get());
    q.add('a');
    q.add('a');
    // Not queued while processing: no second worker may get it.
    expect(q.len()).toBe(0);
    const waiting = track(q.get());
    await flushMicrotasks();
    expect(waiting.settled()).toBe(false);
    q.done(a);
    await flushMicrotasks();
    expect(waiting.value).toEqual({ item: 'a', shutdown: false });
    expect(q.len()).toBe(0);
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('hands out the value added during processing when the item is re-queued', async () => {
    const q = reqs();
    q.add({ namespace: 'ns', name: 'a' });
    const first = await item(q.get());
    const newer = { namespace: 'ns', name: 'a' };
    q.add(newer);
    q.done(first);
    expect(await item(q.get())).toBe(newer);
  });

  it('never hands one key to two concurrent workers', async () => {
    const q = strings();
    const inFlight = new Set<string>();
    const seen: string[] = [];
    let overlap = false;
    const worker = async (): Promise<void> => {
      for (;;) {
        const r = await q.get();
        if (r.shutdown) return;
        if (inFlight.has(r.item)) overlap = true;
        inFlight.add(r.item);
        seen.push(r.item);
        // Re-add while processing and yield, so other workers run meanwhile.
        if (seen.length < 200) q.add(r.item);
        await flushMicrotasks(3);
        inFlight.delete(r.item);
        q.done(r.item);
      }
    };
    const workers = [worker(), worker(), worker(), worker()];
    for (const s of ['a', 'b', 'c']) q.add(s);
    for (let i = 0; i < 200 && seen.length < 200; i++) await flushMicrotasks();
    expect(seen.length).toBeGreaterThanOrEqual(200);
    await q.shutdownWithDrain();
    // Items re-added just before shutdown are still handed out, then workers stop.
    await Promise.all(workers);
    expect(overlap).toBe(false);
    expect(new Set(seen)).toEqual(new Set(['a', 'b', 'c']));
  });

  it('wakes a waiting get() when an item is added', async () => {
    const q = strings();
    const waiting = track(q.get());
    await flushMicrotasks();
    expect(waiting.settled()).toBe(false);
    q.add('a');
    await flushMicrotasks();
    expect(waiting.value).toEqual({ item: 'a', shutdown: false });
    expect(q.len()).toBe(0);
  });

  it('serves concurrent waiting getters in the order they called', async () => {
    const q = strings();
    const getters = [track(q.get()), track(q.get()), track(q.get())];
    q.add('x');
    q.add('y');
    await flushMicrotasks();
    expect(getters.map((g) => g.value)).toEqual([{ item: 'x', shutdown: false }, { item: 'y', shutdown: false }, undefined]);
    q.add('z');
    await flushMicrotasks();
    expect(getters[2]!.value).toEqual({ item: 'z', shutdown: false });
  });

  it('still hands out queued items after shutdown, then reports shutdown', async () => {
    const q = strings();
    q.add('a');
    q.add('b');
    q.shutdown();
    expect(q.shuttingDown()).toBe(true);
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
    expect(await q.get()).toEqual({ item: 'b', shutdown: false });
    expect(await q.get()).toEqual({ shutdown: true });
    expect(await q.get()).toEqual({ shutdown: true });
  });

  it('wakes every waiting getter with shutdown', async () => {
    const q = strings();
    const getters = [q.get(), q.get()];
    q.shutdown();
    expect(await Promise.all(getters)).toEqual([{ shutdown: true }, { shutdown: true }]);
  });

  it('ignores add() after shutdown', async () => {
    const q = strings();
    q.shutdown();
    q.add('a');
    expect(q.len()).toBe(0);
    expect(await q.get()).toEqual({ shutdown: true });
  });

  it('re-queues an item that was dirty at shutdown when it is done', async () => {
    const q = strings();
    q.add('a');
    const a = await item(q.get());
    q.add('a');
    q.shutdown();
    q.done(a);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
  });

  it('shutdownWithDrain waits until every handed-out item is done', async () => {
    const q = strings();
    q.add('a');
    q.add('b');
    q.add('c');
    const a = await item(q.get());
    const b = await item(q.get());
    const drained = track(q.shutdownWithDrain());
    expect(q.shuttingDown()).toBe(true);
    q.add('d');
    expect(q.len()).toBe(1);
    q.done(a);
    await flushMicrotasks();
    expect(drained.settled()).toBe(false);
    q.done(b);
    await flushMicrotasks();
    expect(drained.settled()).toBe(true);
    // The queued item is still there for a worker to take.
    expect(await q.get()).toEqual({ item: 'c', shutdown: false });
  });

  it('shutdownWithDrain resolves at once when nothing is processing', async () => {
    const q = strings();
    q.add('a');
    const drained = track(q.shutdownWithDrain());
    await flushMicrotasks();
    expect(drained.settled()).toBe(true);
    expect(q.len()).toBe(1);
  });

  it('shutdown ends a pending shutdownWithDrain wait', async () => {
    const q = strings();
    q.add('a');
    await q.get();
    const drained = track(q.shutdownWithDrain());
    await flushMicrotasks();
    expect(drained.settled()).toBe(false);
    q.shutdown();
    await flushMicrotasks();
    expect(drained.settled()).toBe(true);
  });

  it('ignores done() for items that are not being processed', async () => {
    const q = strings();
    q.done('never-added');
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
    expect(q.len()).toBe(0);
  });

  it('counts only queued items in len()', async () => {
    const q = strings();
    q.add('a');
    q.add('b');
    await q.get();
    expect(q.len()).toBe(1);
  });
});

describe('BasicWorkQueue', () => {
  it('rejects a missing key function and a bad update period, naming them', () => {
    expect(() => new BasicWorkQueue<string>({ key: undefined as unknown as (s: string) => string })).toThrow(
      'options.key must be a function',
    );
    expect(() => new BasicWorkQueue<string>({ key: (s) => s, unfinishedWorkUpdatePeriodMs: -1 })).toThrow(
      'invalid unfinishedWorkUpdatePeriodMs=-1',
    );
  });

  it('rejects an unfinished-work period of 2^31 ms (Node would fire its timer every 1 ms), naming it and the limit', () => {
    expect(() => new BasicWorkQueue<string>({ key: (s) => s, unfinishedWorkUpdatePeriodMs: 2 ** 31 })).toThrow(
      "BasicWorkQueue: invalid unfinishedWorkUpdatePeriodMs=2147483648: must be a number from 0 to 2147483647 (the longest delay Node's timers honour)",
    );
  });

  it('hands items out in the order its store gives them, keeping the dirty and processing rules', async () => {
    // A last-in-first-out store: only the order changes.
    const stack: QueuedItem<string>[] = [];
    const lifo: QueueStore<QueuedItem<string>> = {
      get size() {
        return stack.length;
      },
      push: (entry) => void stack.push(entry),
      shift: () => stack.pop(),
    };
    const q = new BasicWorkQueue<string>({ key: (s) => s, store: () => lifo });
    for (const s of ['a', 'b', 'c', 'a']) q.add(s);
    expect(q.len()).toBe(3);
    const c = await item(q.get());
    expect(c).toBe('c');
    q.add('c');
    expect(q.len()).toBe(2);
    q.done(c);
    expect([await item(q.get()), await item(q.get()), await item(q.get())]).toEqual(['c', 'b', 'a']);
  });

  it('rejects a store option that is not a function, naming it', () => {
    expect(() => new BasicWorkQueue<string>({ key: (s) => s, store: [] as unknown as () => QueueStore<QueuedItem<string>> })).toThrow(
      'BasicWorkQueue: options.store must be a function, got object',
    );
  });
});
