import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '@protean/core/testing';
import { BucketRateLimiter } from './BucketRateLimiter.js';
import { QueueArgumentError } from './QueueArgumentError.js';

describe('BucketRateLimiter', () => {
  it('lets exactly burst items through at once, then one per 1/qps', () => {
    const limiter = new BucketRateLimiter<string>(10, 100, new FakeClock());
    const burst = Array.from({ length: 100 }, (_, i) => limiter.when(`k${i}`));
    expect(burst).toEqual(new Array(100).fill(0));
    expect([limiter.when('x'), limiter.when('y'), limiter.when('z')]).toEqual([100, 200, 300]);
  });

  it('makes later callers wait behind earlier reservations', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(2, 1, clock);
    expect(limiter.when('a')).toBe(0);
    expect(limiter.when('b')).toBe(500);
    expect(limiter.when('c')).toBe(1_000);
    // 500 ms later one token has refilled, which pays off b's debt only.
    clock.advance(500);
    expect(limiter.when('d')).toBe(1_000);
  });

  it('refills at qps over time and caps at burst', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 3, clock);
    for (let i = 0; i < 3; i++) expect(limiter.when('a')).toBe(0);
    expect(limiter.when('a')).toBe(100);
    clock.advance(250); // +2.5 tokens: debt of 1 paid, 1.5 left
    expect(limiter.when('a')).toBe(0);
    expect(limiter.when('a')).toBe(50);
    clock.advance(60_000); // far more than burst worth of refill
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a'), limiter.when('a')]).toEqual([0, 0, 0, 100]);
  });

  it('is not per item: forget is a no-op and numRequeues is 0', () => {
    const limiter = new BucketRateLimiter<string>(1, 1, new FakeClock());
    limiter.when('a');
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(1_000);
  });

  it('lets everything through when qps is Infinity', () => {
    const limiter = new BucketRateLimiter<string>(Number.POSITIVE_INFINITY, 1, new FakeClock());
    for (let i = 0; i < 10; i++) expect(limiter.when('a')).toBe(0);
  });

  it.each([
    [0, 1, 'invalid qps=0: must be a number > 0'],
    [-1, 1, 'invalid qps=-1'],
    [Number.NaN, 1, 'invalid qps=NaN'],
    [10, 0, 'invalid burst=0: must be an integer >= 1'],
    [10, 1.5, 'invalid burst=1.5'],
    [10, Number.NaN, 'invalid burst=NaN'],
  ])('rejects qps %p and burst %p with an error naming the argument', (qps, burst, message) => {
    expect(() => new BucketRateLimiter<string>(qps, burst, new FakeClock())).toThrow(QueueArgumentError);
    expect(() => new BucketRateLimiter<string>(qps, burst, new FakeClock())).toThrow(`BucketRateLimiter: ${message}`);
  });

  it("checks its rate also in a caller's subclass: only the limiters controllerRateLimiter builds from checked limits skip it", () => {
    class MyBucket<T> extends BucketRateLimiter<T> {}
    expect(() => new MyBucket<string>(0, 1, new FakeClock())).toThrow('BucketRateLimiter: invalid qps=0');
  });
});
