import { describe, expect, it } from '@jest/globals';
import { FakeClock, FakeRateLimiter } from '@protean/core/testing';
import { ItemExponentialFailureRateLimiter } from './ItemExponentialFailureRateLimiter.js';
import { QueueArgumentError } from './QueueArgumentError.js';
import { RateLimitingWorkQueue, type RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';
import { fairQueueKinds } from './fairQueueKinds.testkit.js';
import { priorityQueueKinds } from './priorityQueueKinds.testkit.js';

type Make = <T>(options: RateLimitingWorkQueueOptions<T>) => RateLimitingWorkQueue<T>;
// The fair queue must keep every one of these semantics, so they run against it too.
const kinds: readonly (readonly [label: string, make: Make])[] = [
  ['RateLimitingWorkQueue', (options) => new RateLimitingWorkQueue(options)],
  ...fairQueueKinds,
  ...priorityQueueKinds,
];

describe.each(kinds)('%s', (_label, make) => {
  it('adds a rate-limited item after the limiter delay, growing per failure', () => {
    const clock = new FakeClock();
    const rateLimiter = new ItemExponentialFailureRateLimiter<string>(10, 1_000);
    const q = make<string>({ key: (s) => s, clock, rateLimiter });
    q.addRateLimited('a'); // 10 ms
    clock.advance(9);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(q.numRequeues('a')).toBe(1);
    q.addRateLimited('b'); // 10 ms
    q.addRateLimited('b'); // 20 ms, later: the 10 ms ready time is kept
    expect(q.numRequeues('b')).toBe(2);
    clock.advance(10);
    expect(q.len()).toBe(2);
  });

  it('forget resets the item in the limiter without touching the queue', () => {
    const clock = new FakeClock();
    const q = make<string>({ key: (s) => s, clock });
    q.add('a');
    q.addRateLimited('a');
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(2);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    expect(q.len()).toBe(1);
  });

  it('defaults to the controller limiter on the queue clock: 5 ms for a first failure', () => {
    const clock = new FakeClock();
    const q = make<{ id: string }>({ key: (o) => o.id, clock });
    q.addRateLimited({ id: 'a' });
    clock.advance(4);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    // Object items are counted by the queue key.
    expect(q.numRequeues({ id: 'a' })).toBe(1);
  });

  it('forwards forget and numRequeues to the limiter', () => {
    const rateLimiter = new FakeRateLimiter<string>({ requeues: 7 });
    const q = make<string>({ key: (s) => s, clock: new FakeClock(), rateLimiter });
    q.forget('x');
    expect(rateLimiter.forgotten).toEqual(['x']);
    expect(q.numRequeues('x')).toBe(7);
    expect(q.rateLimiter).toBe(rateLimiter);
  });

  it('treats a negative limiter delay as "now"', () => {
    const rateLimiter = new FakeRateLimiter<string>();
    rateLimiter.delayMs = -5;
    const q = make<string>({ key: (s) => s, clock: new FakeClock(), rateLimiter });
    q.addRateLimited('a');
    expect(q.len()).toBe(1);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])('rejects a limiter delay of %p, naming the limiter', (delayMs) => {
    const rateLimiter = new FakeRateLimiter<string>();
    rateLimiter.delayMs = delayMs;
    const q = make<string>({ key: (s) => s, clock: new FakeClock(), rateLimiter });
    expect(() => q.addRateLimited('a')).toThrow(QueueArgumentError);
    expect(() => q.addRateLimited('a')).toThrow(`${q.constructor.name}.addRateLimited: invalid rateLimiter.when(item)=${String(delayMs)}`);
    expect(q.len() + q.waitingLen()).toBe(0);
  });

  it('ignores addRateLimited after shutdown and leaves no timer', () => {
    const clock = new FakeClock();
    const q = make<string>({ key: (s) => s, clock });
    q.addRateLimited('a');
    q.shutdown();
    q.addRateLimited('b');
    expect(q.waitingLen()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });
});
