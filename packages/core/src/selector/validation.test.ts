import { describe, expect, it } from '@jest/globals';
import { validateLabelKey, validateLabelValue } from './validation.js';

// Four dot-separated parts of up to 63 characters: `last` 61 gives 253 in all.
const prefixOf = (last: number): string => ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(last)].join('.');

describe('validateLabelKey', () => {
  it('accepts a name of exactly 63 characters and rejects 64', () => {
    expect(validateLabelKey('a'.repeat(63))).toBeUndefined();
    expect(validateLabelKey('a'.repeat(64))).toBe('name must be at most 63 characters (has 64)');
    expect(validateLabelKey(`example.com/${'a'.repeat(63)}`)).toBeUndefined();
    expect(validateLabelKey(`example.com/${'a'.repeat(64)}`)).toBe('name must be at most 63 characters (has 64)');
  });

  it('accepts a prefix of exactly 253 characters and rejects 254', () => {
    expect(prefixOf(61)).toHaveLength(253);
    expect(prefixOf(62)).toHaveLength(254);
    expect(validateLabelKey(`${prefixOf(61)}/a`)).toBeUndefined();
    expect(validateLabelKey(`${prefixOf(62)}/a`)).toBe('prefix must be at most 253 characters (has 254)');
  });

  it('accepts names of alphanumerics, -, _ and . that start and end alphanumeric, in any case', () => {
    for (const key of ['a', 'A', '0', 'a-b', 'a_b', 'a.b', 'My.App_v-1', 'in', 'x/y', 'a-b.c/D_e']) {
      expect([key, validateLabelKey(key)]).toEqual([key, undefined]);
    }
  });

  it('rejects bad names and explains the rule', () => {
    for (const key of ['-a', 'a-', '_a', 'a_', '.a', 'a.', 'a b', 'a@b', 'a:b', 'é', 'a\u0000']) {
      expect([key, validateLabelKey(key)]).toEqual([key, expect.stringContaining('name must consist of')]);
    }
    expect(validateLabelKey('')).toBe('name must not be empty');
    expect(validateLabelKey('a/')).toBe('name must not be empty');
  });

  it('requires the prefix to be a lowercase DNS-1123 subdomain', () => {
    for (const prefix of ['example.com', 'a', 'a-b.c0', '0.1']) {
      expect([prefix, validateLabelKey(`${prefix}/n`)]).toEqual([prefix, undefined]);
    }
    for (const prefix of ['Example.com', 'a_b', 'a..b', '.a', 'a.', '-a', 'a-', 'a.-b']) {
      expect([prefix, validateLabelKey(`${prefix}/n`)]).toEqual([prefix, expect.stringContaining('DNS-1123 subdomain')]);
    }
    expect(validateLabelKey('/n')).toBe('prefix before "/" must not be empty');
    expect(validateLabelKey('a/b/c')).toContain('one "/"');
  });
});

describe('validateLabelValue', () => {
  it('accepts the empty value and values of exactly 63 characters, rejects 64', () => {
    expect(validateLabelValue('')).toBeUndefined();
    expect(validateLabelValue('v'.repeat(63))).toBeUndefined();
    expect(validateLabelValue('v'.repeat(64))).toBe('must be at most 63 characters (has 64)');
  });

  it('uses the same character rule as key names and allows no slash', () => {
    for (const value of ['a', 'A.b_c-1', '0']) {
      expect([value, validateLabelValue(value)]).toEqual([value, undefined]);
    }
    for (const value of ['-a', 'a_', '.', 'a/b', 'a b', 'a=b', 'ü']) {
      expect([value, validateLabelValue(value)]).toEqual([value, expect.stringContaining('must be empty or consist of')]);
    }
  });
});
