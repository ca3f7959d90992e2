import { describe, expect, it } from '@jest/globals';
import { markChecked } from '@protean/core/internal';
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

describe('controllerRateLimiter: limits checked once, where they entered', () => {
  it("takes limits checked where they entered (the DynamicController's, from resolveConfig) as they are: neither it nor the limiters it builds check them again", () => {
    // Out of range on purpose (a cap below the first delay): only a second check would notice.
    const limits = markChecked(Object.freeze({ minRetryDelayMs: 50, maxRetryDelayMs: 20, qps: 1, burst: 1 }));
    const limiter = controllerRateLimiter<string>(limits, new FakeClock());
    expect(limiter.when('a')).toBe(20);
  });

  it("checks a caller's own limits, also a copy of checked ones, naming the limits field rather than an inner limiter's parameter", () => {
    const copy = { ...markChecked(Object.freeze({ minRetryDelayMs: 50, maxRetryDelayMs: 20, qps: 1, burst: 1 })) };
    expect(() => controllerRateLimiter<string>(copy)).toThrow(
      'controllerRateLimiter: invalid limits.maxRetryDelayMs=20: must be >= limits.minRetryDelayMs (50)',
    );
    expect(() => controllerRateLimiter<string>({ minRetryDelayMs: 5, maxRetryDelayMs: 10, qps: 1, burst: 0 })).toThrow(
      'controllerRateLimiter: invalid limits.burst=0',
    );
  });
});
