import { describe, expect, it } from '@jest/globals';
import { Random } from './Random.js';

describe('Random', () => {
  it('replays the same sequence from the same seed, and another from another seed', () => {
    const draw = (seed: number): number[] => {
      const r = new Random(seed);
      return Array.from({ length: 5 }, () => r.next());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(draw(42).every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('draws integers below n, picks among items and flips biased coins', () => {
    const r = new Random(7);
    const ints = Array.from({ length: 200 }, () => r.int(3));
    expect(new Set(ints)).toEqual(new Set([0, 1, 2]));
    expect(['a', 'b']).toContain(r.pick(['a', 'b']));
    expect(Array.from({ length: 20 }, () => r.chance(0))).not.toContain(true);
    expect(Array.from({ length: 20 }, () => r.chance(1))).not.toContain(false);
  });
});
