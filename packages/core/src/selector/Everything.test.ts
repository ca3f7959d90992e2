import { describe, expect, it } from '@jest/globals';
import { Everything } from './Everything.js';

describe('Everything', () => {
  it('matches every label set and prints as the empty string', () => {
    expect(Everything.matches({})).toBe(true);
    expect(Everything.matches({ a: 'b', constructor: 'x' })).toBe(true);
    expect(Everything.toString()).toBe('');
    expect(Everything.empty()).toBe(true);
    expect(Everything.matchesNothing()).toBe(false);
    expect(Everything.requirements()).toEqual([]);
    expect(Object.isFrozen(Everything)).toBe(true);
  });
});
