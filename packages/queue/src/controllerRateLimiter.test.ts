import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '@protean/core/testing';
import { controllerRateLimiter, defaultControllerRateLimiter } from './controllerRateLimiter.js';
import { QueueArgumentError } from './QueueArgumentError.js';

describe('defaultControllerRateLimiter', () => {
  it('backs off per item from 5 ms and caps at 1000 s', () => {
    const limiter = defaultControllerRateLimiter<string>(new FakeClock());
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a'), limiter.when('a')]).toEqual([5, 10, 20, 40]);
    const other = defaultControllerRateLimiter<string>(new FakeClock());
    let last = 0;
    for (let i = 0; i < 30; i++) last = other.when('a');
    expect(last).toBe(1_000_000);
  });

  it('limits overall to a burst of 100 at 10 per second', () => {
    const limiter = defaultControllerRateLimiter<string>(new FakeClock());
    for (let i = 0; i < 100; i++) expect(limiter.when(`k${i}`)).toBe(5);
    expect(limiter.when('k100')).toBe(100);
    expect(limiter.when('k101')).toBe(200);
  });

  it('counts object items by the given key', () => {
    const limiter = defaultControllerRateLimiter<{ id: string }>(new FakeClock(), (o) => o.id);
    limiter.when({ id: 'a' });
    expect(limiter.when({ id: 'a' })).toBe(10);
    expect(limiter.numRequeues({ id: 'a' })).toBe(2);
  });
});

describe('controllerRateLimiter', () => {
  it('builds backoff and bucket from core RateLimits', () => {
    const clock = new FakeClock();
    const limiter = controllerRateLimiter<string>({ minRetryDelayMs: 200, maxRetryDelayMs: 1_000, qps: 1, burst: 2 }, clock);
    expect([limiter.when('a'), limiter.when('a'), limiter.when('a'), limiter.when('a')]).toEqual([200, 400, 1_000, 2_000]);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    clock.advance(10_000);
    expect(limiter.when('a')).toBe(200);
  });

  it.each([
    [{ qps: 0 }, 'invalid limits.qps=0: must be a number > 0'],
    [{ qps: Number.NaN }, 'invalid limits.qps=NaN'],
    [{ burst: 0.5 }, 'invalid limits.burst=0.5: must be an integer >= 1'],
    [{ minRetryDelayMs: -1 }, 'invalid limits.minRetryDelayMs=-1: must be a finite number >= 0'],
    [{ maxRetryDelayMs: Number.NaN }, 'invalid limits.maxRetryDelayMs=NaN'],
    [{ minRetryDelayMs: 20 }, 'invalid limits.maxRetryDelayMs=10: must be >= limits.minRetryDelayMs (20)'],
  ])('rejects %p, naming the limits field', (bad, message) => {
    const limits = { minRetryDelayMs: 5, maxRetryDelayMs: 10, qps: 1, burst: 1, ...bad };
    expect(() => controllerRateLimiter<string>(limits)).toThrow(QueueArgumentError);
    expect(() => controllerRateLimiter<string>(limits)).toThrow(`controllerRateLimiter: ${message}`);
  });
});
