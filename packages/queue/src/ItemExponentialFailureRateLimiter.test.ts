import { describe, expect, it } from '@jest/globals';
import { ItemExponentialFailureRateLimiter } from './ItemExponentialFailureRateLimiter.js';
import { QueueArgumentError } from './QueueArgumentError.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from the base delay per failure and clamps at the max', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000);
    const delays = Array.from({ length: 10 }, () => limiter.when('a'));
    expect(delays).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1_000, 1_000]);
    expect(limiter.numRequeues('a')).toBe(10);
  });

  it('returns the max, never NaN or Infinity, for huge failure counts', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    let last = 0;
    for (let i = 0; i < 1_100; i++) {
      last = limiter.when('a');
      expect(Number.isFinite(last)).toBe(true);
    }
    expect(last).toBe(1_000_000);
    expect(limiter.numRequeues('a')).toBe(1_100);
  });

  it('counts failures per item', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 100);
    expect([limiter.when('a'), limiter.when('a'), limiter.when('b'), limiter.when('a')]).toEqual([1, 2, 1, 4]);
    expect([limiter.numRequeues('a'), limiter.numRequeues('b'), limiter.numRequeues('c')]).toEqual([3, 1, 0]);
  });

  it('forget resets an item to the base delay', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000);
    limiter.when('a');
    limiter.when('a');
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });

  it('identifies object items by the key function', () => {
    const limiter = new ItemExponentialFailureRateLimiter<{ ns: string; name: string }>(5, 1_000, (o) => `${o.ns}/${o.name}`);
    expect(limiter.when({ ns: 'x', name: 'a' })).toBe(5);
    expect(limiter.when({ ns: 'x', name: 'a' })).toBe(10);
    limiter.forget({ ns: 'x', name: 'a' });
    expect(limiter.numRequeues({ ns: 'x', name: 'a' })).toBe(0);
  });

  it('refuses object items without a key function instead of sharing one counter', () => {
    const limiter = new ItemExponentialFailureRateLimiter<{ id: string }>(5, 1_000);
    expect(() => limiter.when({ id: 'a' })).toThrow('object items need a key function');
  });

  it('returns 0 for every failure when the base is 0', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(0, 10);
    for (let i = 0; i < 1_100; i++) expect(limiter.when('a')).toBe(0);
  });

  it.each([
    [-1, 10, 'invalid baseDelayMs=-1'],
    [Number.NaN, 10, 'invalid baseDelayMs=NaN'],
    [5, Number.NaN, 'invalid maxDelayMs=NaN'],
    [5, Number.POSITIVE_INFINITY, 'invalid maxDelayMs=Infinity'],
    [10, 5, 'invalid maxDelayMs=5: must be >= baseDelayMs (10)'],
  ])('rejects base %p and max %p with an error naming the argument', (base, max, message) => {
    expect(() => new ItemExponentialFailureRateLimiter<string>(base, max)).toThrow(QueueArgumentError);
    expect(() => new ItemExponentialFailureRateLimiter<string>(base, max)).toThrow(`ItemExponentialFailureRateLimiter: ${message}`);
  });

  it("checks its delays also in a caller's subclass: only the limiters controllerRateLimiter builds from checked limits skip it", () => {
    class MyLimiter<T> extends ItemExponentialFailureRateLimiter<T> {}
    expect(() => new MyLimiter<string>(10, 5)).toThrow('ItemExponentialFailureRateLimiter: invalid maxDelayMs=5');
  });
});
