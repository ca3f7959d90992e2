import { describe, expect, it } from '@jest/globals';
import { type QueueGetResult } from '@protean/core';
import { FakeClock } from '@protean/core/testing';
import { DelayingWorkQueue } from './DelayingWorkQueue.js';
import { QueueArgumentError } from './QueueArgumentError.js';
import type { RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';
import { fairQueueKinds } from './fairQueueKinds.testkit.js';
import { priorityQueueKinds } from './priorityQueueKinds.testkit.js';

type Make = <T>(options: RateLimitingWorkQueueOptions<T>) => DelayingWorkQueue<T>;
// The fair queue must keep every one of these semantics, so they run against it too.
const kinds: readonly (readonly [label: string, make: Make])[] = [
  ['DelayingWorkQueue', (options) => new DelayingWorkQueue(options)],
  ...fairQueueKinds,
  ...priorityQueueKinds,
];

/** Takes every queued item (and marks it done). */
async function takeAll(q: DelayingWorkQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const r = (await q.get()) as QueueGetResult<string> & { item: string };
    out.push(r.item);
    q.done(r.item);
  }
  return out;
}

describe.each(kinds)('%s', (_label, make) => {
  function setup(): { clock: FakeClock; q: DelayingWorkQueue<string> } {
    const clock = new FakeClock(1_000);
    return { clock, q: make<string>({ key: (s) => s, clock }) };
  }

  it('adds immediately when delayMs is 0', async () => {
    const { clock, q } = setup();
    q.addAfter('a', 0);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    expect(await takeAll(q)).toEqual(['a']);
  });

  it('adds an item exactly when its delay has passed', async () => {
    const { clock, q } = setup();
    q.addAfter('a', 100);
    expect(q.len()).toBe(0);
    await clock.advanceAsync(99);
    expect(q.len()).toBe(0);
    await clock.advanceAsync(1);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
    expect(await takeAll(q)).toEqual(['a']);
  });

  it('keeps the earlier ready time when a waiting item is added again later', async () => {
    const { clock, q } = setup();
    q.addAfter('a', 100);
    clock.advance(50);
    q.addAfter('a', 200); // ready at +250: later, ignored
    expect(q.waitingLen()).toBe(1);
    clock.advance(50);
    expect(q.len()).toBe(1);
    clock.advance(500);
    expect(q.len()).toBe(1);
    expect(await takeAll(q)).toEqual(['a']);
  });

  it('tells when a waiting item joins the queue, the earlier time once added again, and nothing once it has joined', async () => {
    const { clock, q } = setup();
    expect(q.readyAt('a')).toBeUndefined();
    q.addAfter('a', 500);
    expect(q.readyAt('a')).toBe(1_500);
    q.addAfter('a', 200);
    expect(q.readyAt('a')).toBe(1_200);
    q.addAfter('a', 900);
    expect(q.readyAt('a')).toBe(1_200);
    await clock.advanceAsync(200);
    expect(q.readyAt('a')).toBeUndefined();
    expect(await takeAll(q)).toEqual(['a']);
  });

  it('moves a waiting item up when it is added again with an earlier ready time', () => {
    const { clock, q } = setup();
    q.addAfter('a', 1_000);
    q.addAfter('a', 10);
    expect(q.waitingLen()).toBe(1);
    clock.advance(10);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
    // The one timer was re-armed, not duplicated: nothing is left to fire.
    expect(clock.pendingTimers()).toBe(0);
  });

  it('fires several delayed items in ready-time order, ties in add order', async () => {
    const { clock, q } = setup();
    q.addAfter('c', 300);
    q.addAfter('a', 100);
    q.addAfter('d', 300);
    q.addAfter('b', 200);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(150);
    expect(await takeAll(q)).toEqual(['a']);
    clock.advance(1_000);
    expect(await takeAll(q)).toEqual(['b', 'c', 'd']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('collapses a delayed item that fires while the same item is queued', async () => {
    const { clock, q } = setup();
    q.addAfter('a', 100);
    q.add('a');
    clock.advance(100);
    expect(q.len()).toBe(1);
    expect(await takeAll(q)).toEqual(['a']);
  });

  it('uses one clock timer for many delayed items', () => {
    const { clock, q } = setup();
    for (let i = 0; i < 100; i++) q.addAfter(`k${i}`, 1_000 - i);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1_000);
    expect(q.len()).toBe(100);
  });

  it('drops pending delayed items at shutdown and clears its timer', async () => {
    const { clock, q } = setup();
    q.addAfter('a', 100);
    q.addAfter('b', 0);
    q.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    expect(q.waitingLen()).toBe(0);
    clock.advance(1_000);
    expect(await q.get()).toEqual({ item: 'b', shutdown: false });
    expect(await q.get()).toEqual({ shutdown: true });
  });

  it('ignores addAfter after shutdown', () => {
    const { clock, q } = setup();
    q.shutdown();
    q.addAfter('a', 10);
    q.addAfter('b', 0);
    expect(q.waitingLen()).toBe(0);
    expect(q.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('clears its timer on shutdownWithDrain too', async () => {
    const { clock, q } = setup();
    q.addAfter('a', 100);
    await q.shutdownWithDrain();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('re-arms instead of overflowing Node timers for delays past 2^31-1 ms', () => {
    const { clock, q } = setup();
    const longMs = 2 ** 31 + 5_000;
    q.addAfter('a', longMs);
    clock.advance(2 ** 31 - 1);
    expect(q.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(longMs - (2 ** 31 - 1));
    expect(q.len()).toBe(1);
  });

  it.each([
    [-1, 'invalid delayMs=-1'],
    [Number.NaN, 'invalid delayMs=NaN'],
    [Number.POSITIVE_INFINITY, 'invalid delayMs=Infinity'],
  ])('rejects addAfter delayMs %p with an error naming it', (delayMs, message) => {
    const { q } = setup();
    expect(() => q.addAfter('a', delayMs)).toThrow(QueueArgumentError);
    expect(() => q.addAfter('a', delayMs)).toThrow(`${q.constructor.name}.addAfter: ${message}: must be a finite number >= 0`);
    expect(q.waitingLen()).toBe(0);
  });
});
