import { describe, expect, it } from '@jest/globals';
import { FakeClock, FakeRateLimiter } from '@protean/core/testing';
import { BucketRateLimiter } from './BucketRateLimiter.js';
import { ItemExponentialFailureRateLimiter } from './ItemExponentialFailureRateLimiter.js';
import { MaxOfRateLimiter } from './MaxOfRateLimiter.js';
import { QueueArgumentError } from './QueueArgumentError.js';

describe('MaxOfRateLimiter', () => {
  it('asks every limiter and returns the largest delay', () => {
    const a = new FakeRateLimiter<string>({ delayMs: 30, requeues: 1 });
    const b = new FakeRateLimiter<string>({ delayMs: 70, requeues: 4 });
    const c = new FakeRateLimiter<string>({ delayMs: 10, requeues: 2 });
    const limiter = new MaxOfRateLimiter(a, b, c);
    expect(limiter.when('x')).toBe(70);
    expect([a.whenCalls.length, b.whenCalls.length, c.whenCalls.length]).toEqual([1, 1, 1]);
    expect(limiter.numRequeues('x')).toBe(4);
  });

  it('forwards forget to every limiter', () => {
    const a = new FakeRateLimiter<string>({ delayMs: 1, requeues: 0 });
    const b = new FakeRateLimiter<string>({ delayMs: 2, requeues: 0 });
    new MaxOfRateLimiter(a, b).forget('x');
    expect([a.forgotten, b.forgotten]).toEqual([['x'], ['x']]);
  });

  it('combines backoff and bucket: the bucket wins once the burst is spent', () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemExponentialFailureRateLimiter<string>(5, 1_000),
      new BucketRateLimiter<string>(10, 2, new FakeClock()),
    );
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a'), limiter.when('b')]).toEqual([5, 10, 100, 200]);
    expect(limiter.numRequeues('a')).toBe(3);
  });

  it('passes a NaN from any limiter through rather than hiding it', () => {
    const limiter = new MaxOfRateLimiter(
      new FakeRateLimiter<string>({ delayMs: Number.NaN, requeues: 0 }),
      new FakeRateLimiter<string>({ delayMs: 50, requeues: 0 }),
    );
    expect(limiter.when('x')).toBeNaN();
  });

  it('rejects an empty limiter list', () => {
    expect(() => new MaxOfRateLimiter<string>()).toThrow(QueueArgumentError);
    expect(() => new MaxOfRateLimiter<string>()).toThrow('MaxOfRateLimiter: invalid limiters=0: needs at least one limiter');
  });
});
