import { describe, expect, it } from '@jest/globals';
import { Everything } from './Everything.js';
import { Nothing, NOTHING_SELECTOR_STRING } from './Nothing.js';
import { parseSelector } from './parseSelector.js';
import { SelectorError } from './SelectorError.js';

describe('Nothing', () => {
  it('matches no labels and says so', () => {
    expect(Nothing.matches({})).toBe(false);
    expect(Nothing.matches({ a: 'b' })).toBe(false);
    expect(Nothing.matchesNothing()).toBe(true);
    expect(Nothing.empty()).toBe(false);
    expect(Nothing.requirements()).toEqual([]);
  });

  it('prints a sentinel that differs from Everything and that no string selector can produce', () => {
    expect(Nothing.toString()).toBe(NOTHING_SELECTOR_STRING);
    expect(Nothing.toString()).not.toBe(Everything.toString());
    expect(() => parseSelector(Nothing.toString())).toThrow(SelectorError);
    expect(`${Nothing}`).toBe('<nothing>');
  });

  it('is immutable', () => {
    expect(Object.isFrozen(Nothing)).toBe(true);
    expect(Object.isFrozen(Nothing.requirements())).toBe(true);
  });
});
