import { describe, expect, it } from '@jest/globals';
import { equalityRequirements } from './equalityRequirements.js';
import { Everything } from './Everything.js';
import { Nothing } from './Nothing.js';
import { parseSelector } from './parseSelector.js';
import { selectorFromLabelSelector } from './selectorFromLabelSelector.js';

describe('equalityRequirements', () => {
  it('returns the single-value In requirements however they were written, in key order', () => {
    expect(equalityRequirements(parseSelector('z in (1), b==2, a=, c!=3, d in (4,5), e, !f'))).toEqual([
      ['a', ''],
      ['b', '2'],
      ['z', '1'],
    ]);
    expect(
      equalityRequirements(
        selectorFromLabelSelector({ matchLabels: { app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] }),
      ),
    ).toEqual([
      ['app', 'x'],
      ['tier', 'web'],
    ]);
  });

  it('returns nothing for selectors without an equality requirement', () => {
    expect(equalityRequirements(Everything)).toEqual([]);
    expect(equalityRequirements(Nothing)).toEqual([]);
    expect(equalityRequirements(parseSelector('a!=b,c in (d,e),f,!g'))).toEqual([]);
  });

  it('returns every equality on a key that has several', () => {
    expect(equalityRequirements(parseSelector('a=c,a=b'))).toEqual([
      ['a', 'b'],
      ['a', 'c'],
    ]);
  });

  it('gives only labels that every matching label set carries', () => {
    const s = parseSelector('a=b,c in (d),e notin (f)');
    const labels = { a: 'b', c: 'd', x: 'y' };
    expect(s.matches(labels)).toBe(true);
    for (const [key, value] of equalityRequirements(s)) expect(labels[key as keyof typeof labels]).toBe(value);
  });
});
