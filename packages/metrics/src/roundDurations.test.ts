import { describe, expect, it } from '@jest/globals';
import { roundDurations } from './roundDurations.js';

describe('roundDurations', () => {
  it('rounds numbers under keys ending in Ms, at any depth, to integers (one decimal below 10 ms)', () => {
    const status = {
      generatedAt: '2026-12-01T15:00:00.000Z',
      reconcileTimeoutMs: 30000,
      parents: [{ ageMs: 123456.789123, passes: 3 }],
      informers: [{ idleMs: 0.43219, failing: { forMs: 75012.5, consecutive: 4, retryInMs: 9.96 }, relists: 1.5 }],
      queue: { durationMs: null, labels: { 'x-Ms': 'kept' } },
    };
    expect(roundDurations(status)).toEqual({
      generatedAt: '2026-12-01T15:00:00.000Z',
      reconcileTimeoutMs: 30000,
      parents: [{ ageMs: 123457, passes: 3 }],
      informers: [{ idleMs: 0.4, failing: { forMs: 75013, consecutive: 4, retryInMs: 10 }, relists: 1.5 }],
      queue: { durationMs: null, labels: { 'x-Ms': 'kept' } },
    });
  });

  it('leaves the input untouched', () => {
    const input = { ageMs: 1.23456 };
    roundDurations(input);
    expect(input.ageMs).toBe(1.23456);
  });
});
