import { describe, expect, it } from '@jest/globals';
import { type RateLimiter } from '@protean/core';
import { FakeClock } from '@protean/core/testing';
import { BucketRateLimiter } from './BucketRateLimiter.js';
import { ItemExponentialFailureRateLimiter } from './ItemExponentialFailureRateLimiter.js';
import { MaxOfRateLimiter } from './MaxOfRateLimiter.js';
import { QueueArgumentError } from './QueueArgumentError.js';

class Scripted implements RateLimiter<string> {
  calls = 0;
  forgotten: string[] = [];
  constructor(
    private readonly delayMs: number,
    private readonly requeues: number,
  ) {}
  when(): number {
    this.calls++;
    return this.delayMs;
  }
  forget(item: string): void {
    this.forgotten.push(item);
  }
  numRequeues(): number {
    return this.requeues;
  }
}

describe('MaxOfRateLimiter', () => {
  it('asks every limiter and returns the largest delay', () => {
    const a = new Scripted(30, 1);
    const b = new Scripted(70, 4);
    const c = new Scripted(10, 2);
    const limiter = new MaxOfRateLimiter(a, b, c);
    expect(limiter.when('x')).toBe(70);
    expect([a.calls, b.calls, c.calls]).toEqual([1, 1, 1]);
    expect(limiter.numRequeues('x')).toBe(4);
  });

  it('forwards forget to every limiter', () => {
    const a = new Scripted(1, 0);
    const b = new Scripted(2, 0);
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
    const limiter = new MaxOfRateLimiter(new Scripted(Number.NaN, 0), new Scripted(50, 0));
    expect(limiter.when('x')).toBeNaN();
  });

  it('rejects an empty limiter list', () => {
    expect(() => new MaxOfRateLimiter<string>()).toThrow(QueueArgumentError);
    expect(() => new MaxOfRateLimiter<string>()).toThrow('MaxOfRateLimiter: invalid limiters=0: needs at least one limiter');
  });
});
