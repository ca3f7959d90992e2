import { describe, expect, it } from '@jest/globals';
import { Everything } from './Everything.js';
import type { LabelSelector } from './LabelSelector.js';
import { Nothing } from './Nothing.js';
import { parseSelector } from './parseSelector.js';
import { SelectorError } from './SelectorError.js';
import { selectorFromLabelSelector } from './selectorFromLabelSelector.js';

function conversionError(ls: unknown): SelectorError {
  try {
    selectorFromLabelSelector(ls as LabelSelector);
  } catch (err) {
    if (err instanceof SelectorError) return err;
    throw err;
  }
  throw new Error(`selectorFromLabelSelector(${JSON.stringify(ls)}) did not throw`);
}

describe('selectorFromLabelSelector', () => {
  it('turns null and undefined into Nothing, which matches no labels', () => {
    expect(selectorFromLabelSelector(null)).toBe(Nothing);
    expect(selectorFromLabelSelector(undefined)).toBe(Nothing);
    expect(selectorFromLabelSelector(null).matches({})).toBe(false);
  });

  it('turns {} and empty lists or maps into Everything', () => {
    expect(selectorFromLabelSelector({})).toBe(Everything);
    expect(selectorFromLabelSelector({ matchLabels: {}, matchExpressions: [] })).toBe(Everything);
    expect(selectorFromLabelSelector({ matchLabels: null, matchExpressions: null })).toBe(Everything);
    expect(selectorFromLabelSelector({}).matches({})).toBe(true);
  });

  it('converts matchLabels and every operator to the canonical string selector', () => {
    const s = selectorFromLabelSelector({
      matchLabels: { tier: 'web', app: 'shop' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev', 'prod'] },
        { key: 'zone', operator: 'NotIn', values: ['b', 'a'] },
        { key: 'track', operator: 'NotIn', values: ['canary'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist', values: [] },
        { key: 'v', operator: 'In', values: ['', 'x'] },
      ],
    });
    expect(s.toString()).toBe('app=shop,env in (dev,prod),!legacy,owner,tier=web,track!=canary,v in (,x),zone notin (a,b)');
    expect(parseSelector(s.toString()).toString()).toBe(s.toString());
  });

  it('gives the same string as the equivalent string selector, so both share a map key', () => {
    const fromObject = selectorFromLabelSelector({
      matchLabels: { a: 'b' },
      matchExpressions: [
        { key: 'a', operator: 'In', values: ['b'] },
        { key: 'c', operator: 'NotIn', values: ['d'] },
      ],
    });
    expect(fromObject.toString()).toBe(parseSelector('c!=d, a==b').toString());
    expect(fromObject.toString()).toBe('a=b,c!=d');
  });

  it('matches with Kubernetes semantics, NotIn included for an absent key', () => {
    const s = selectorFromLabelSelector({
      matchLabels: { app: 'shop' },
      matchExpressions: [{ key: 'track', operator: 'NotIn', values: ['canary'] }],
    });
    expect(s.matches({ app: 'shop' })).toBe(true);
    expect(s.matches({ app: 'shop', track: 'stable' })).toBe(true);
    expect(s.matches({ app: 'shop', track: 'canary' })).toBe(false);
    expect(s.matches({ track: 'stable' })).toBe(false);
  });

  it.each<[string, unknown, string, string]>([
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      'matchExpressions[0].values',
      'must not be empty for operator In',
    ],
    [
      'In with []',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      'matchExpressions[0].values',
      'must not be empty for operator In',
    ],
    [
      'NotIn with []',
      {
        matchExpressions: [
          { key: 'a', operator: 'Exists' },
          { key: 'a', operator: 'NotIn', values: [] },
        ],
      },
      'matchExpressions[1].values',
      'must not be empty for operator NotIn',
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] },
      'matchExpressions[0].values',
      'must be empty for operator Exists',
    ],
    [
      'DoesNotExist with values',
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: [''] }] },
      'matchExpressions[0].values',
      'must be empty for operator DoesNotExist',
    ],
    [
      'an unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      'matchExpressions[0].operator',
      'unknown operator "Gt"; must be In, NotIn, Exists or DoesNotExist',
    ],
    [
      'a lowercase operator',
      { matchExpressions: [{ key: 'a', operator: 'in', values: ['b'] }] },
      'matchExpressions[0].operator',
      'unknown operator "in"',
    ],
    ['a missing operator', { matchExpressions: [{ key: 'a' }] }, 'matchExpressions[0].operator', 'unknown operator undefined'],
    [
      'an invalid expression key',
      { matchExpressions: [{ key: 'a b', operator: 'Exists' }] },
      'matchExpressions[0].key',
      'key "a b" is invalid: name must consist of',
    ],
    ['a missing key', { matchExpressions: [{ operator: 'Exists' }] }, 'matchExpressions[0].key', 'must be a string, not undefined'],
    [
      'an invalid expression value',
      { matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', '-bad'] }] },
      'matchExpressions[0].values[1]',
      'value "-bad" is invalid',
    ],
    [
      'a too long value',
      { matchExpressions: [{ key: 'a', operator: 'In', values: ['v'.repeat(64)] }] },
      'matchExpressions[0].values[0]',
      'must be at most 63 characters (has 64)',
    ],
    [
      'a numeric value',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] },
      'matchExpressions[0].values[0]',
      'must be a string, not 1',
    ],
    [
      'values that are not a list',
      { matchExpressions: [{ key: 'a', operator: 'In', values: 'b' }] },
      'matchExpressions[0].values',
      'must be a list of strings, not "b"',
    ],
    [
      'an expression that is not an object',
      { matchExpressions: ['a=b'] },
      'matchExpressions[0]',
      'must be an object with key, operator and values',
    ],
    ['matchExpressions that is not a list', { matchExpressions: { key: 'a' } }, 'matchExpressions', 'must be a list of requirements'],
    [
      'an invalid matchLabels key',
      { matchLabels: { 'Bad.Prefix/a': 'b' } },
      'matchLabels["Bad.Prefix/a"]',
      'key "Bad.Prefix/a" is invalid: prefix must be a DNS-1123 subdomain',
    ],
    [
      'a too long matchLabels key',
      { matchLabels: { ['k'.repeat(64)]: 'b' } },
      `matchLabels["${'k'.repeat(64)}"]`,
      'name must be at most 63 characters (has 64)',
    ],
    ['an invalid matchLabels value', { matchLabels: { a: 'b c' } }, 'matchLabels["a"]', 'value "b c" is invalid'],
    ['a numeric matchLabels value', { matchLabels: { version: 2 } }, 'matchLabels["version"]', 'value must be a string, not 2'],
    ['matchLabels that is a list', { matchLabels: ['a'] }, 'matchLabels', 'must be a map of label keys to values'],
    ['a selector that is a string', 'a=b', '', 'must be an object with matchLabels and/or matchExpressions'],
  ])('rejects %s, naming the field', (_what, ls, path, fragment) => {
    const err = conversionError(ls);
    expect(err.name).toBe('SelectorError');
    expect(err.path).toBe(path);
    expect(err.position).toBeUndefined();
    expect(err.input).toBe(JSON.stringify(ls));
    expect(err.message).toContain(JSON.stringify(ls));
    expect(err.message).toContain(fragment);
  });

  it('reports input that JSON cannot render instead of failing while building the error', () => {
    const ls: Record<string, unknown> = { matchLabels: { a: 1n } };
    const err = conversionError(ls);
    expect(err.input).toBe('[object Object]');
    expect(err.message).toContain('value must be a string, not 1');
  });

  it('accepts values of exactly 63 characters and the empty value', () => {
    const s = selectorFromLabelSelector({
      matchLabels: { a: 'v'.repeat(63), b: '' },
    });
    expect(s.toString()).toBe(`a=${'v'.repeat(63)},b=`);
  });
});
