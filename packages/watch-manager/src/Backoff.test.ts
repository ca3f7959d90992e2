import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '@protean/core/testing';
import { Backoff } from './Backoff.js';

describe('Backoff', () => {
  it('doubles from initialMs up to maxMs without jitter', () => {
    const b = new Backoff({ initialMs: 800, maxMs: 30_000, jitter: 0, clock: new FakeClock() });
    expect(Array.from({ length: 8 }, () => b.next())).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
  });

  it('spreads each delay within ±jitter of its base', () => {
    const low = new Backoff({ initialMs: 1000, maxMs: 10_000, jitter: 0.2, random: () => 0, clock: new FakeClock() });
    const high = new Backoff({ initialMs: 1000, maxMs: 10_000, jitter: 0.2, random: () => 0.999999, clock: new FakeClock() });
    expect([low.next(), low.next()]).toEqual([800, 1600]);
    expect([high.next(), high.next()]).toEqual([1200, 2400]);
  });

  it('starts over after a healthy period without failures', () => {
    const clock = new FakeClock();
    const b = new Backoff({ initialMs: 100, maxMs: 10_000, jitter: 0, resetAfterMs: 60_000, clock });
    b.next();
    b.next();
    clock.advance(59_999);
    expect(b.next()).toBe(400);
    // The healthy period starts when that 400 ms wait ends.
    clock.advance(400 + 59_999);
    expect(b.next()).toBe(800);
    clock.advance(800 + 60_000);
    expect(b.next()).toBe(100);
  });

  it('reset() forgets past failures', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 10_000, jitter: 0, clock: new FakeClock() });
    b.next();
    b.next();
    b.reset();
    expect(b.next()).toBe(100);
  });

  it('rejects a max below the initial delay', () => {
    expect(() => new Backoff({ initialMs: 100, maxMs: 10 })).toThrow(/initialMs=100 maxMs=10/);
  });
});

describe('Backoff healthy period', () => {
  it('counts the healthy period from the end of the last wait, so a cap near resetAfterMs does not reset itself', () => {
    const clock = new FakeClock();
    const backoff = new Backoff({
      initialMs: 800,
      maxMs: 120_000,
      factor: 2,
      jitter: 0.2,
      resetAfterMs: 120_000,
      clock,
      random: () => 0.75,
    });
    const delays: number[] = [];
    for (let i = 0; i < 14; i++) {
      const d = backoff.next();
      delays.push(d);
      clock.advance(d + 50); // the retry fails 50 ms after its wait ends
    }
    expect(Math.min(...delays.slice(9))).toBeGreaterThanOrEqual(120_000);
  });

  it('still starts over after a healthy period that long once the wait has ended', () => {
    const clock = new FakeClock();
    const backoff = new Backoff({ initialMs: 800, maxMs: 120_000, factor: 2, jitter: 0, resetAfterMs: 120_000, clock });
    const first = backoff.next();
    expect(backoff.next()).toBe(1600);
    clock.advance(1600 + 120_000);
    expect(backoff.next()).toBe(first);
  });
});
