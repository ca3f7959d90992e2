import { describe, expect, it } from '@jest/globals';
import { Everything } from './Everything.js';
import { parseSelector } from './parseSelector.js';
import { SelectorError } from './SelectorError.js';

function parseError(text: string): SelectorError {
  try {
    parseSelector(text);
  } catch (err) {
    if (err instanceof SelectorError) return err;
    throw err;
  }
  throw new Error(`parseSelector(${JSON.stringify(text)}) did not throw`);
}

const name63 = 'n'.repeat(63);
const value63 = 'v'.repeat(63);
// Four dot-separated parts, 253 characters in all.
const prefix253 = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');

describe('parseSelector: accepted forms and their canonical strings', () => {
  it.each([
    ['', ''],
    [' \t\r\n ', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a=b'],
    ['a in (b)', 'a=b'],
    ['a!=b', 'a!=b'],
    ['a notin (b)', 'a!=b'],
    ['a in (y,x,y)', 'a in (x,y)'],
    ['a notin (y,x)', 'a notin (x,y)'],
    ['a', 'a'],
    ['!a', '!a'],
    ['! a', '!a'],
    ['a=', 'a='],
    ['a==', 'a='],
    ['a!=', 'a!='],
    ['a=,b', 'a=,b'],
    ['a in (,b)', 'a in (,b)'],
    ['a in (b,)', 'a in (,b)'],
    ['a in (b,,c)', 'a in (,b,c)'],
    ['a in (,)', 'a='],
    ['a notin (,)', 'a!='],
    ['a in(b,c)', 'a in (b,c)'],
    [' a = b , c in ( x , y ) ,\t!d\n', 'a=b,c in (x,y),!d'],
    ['a\n=\nb', 'a=b'],
    ['in=notin', 'in=notin'],
    ['in in (in,notin)', 'in in (in,notin)'],
    ['notin notin (in)', 'notin!=in'],
    ['in', 'in'],
    ['!notin', '!notin'],
    ['example.com/my-app=v1.0', 'example.com/my-app=v1.0'],
    ['example.com/MyApp=X_y.z', 'example.com/MyApp=X_y.z'],
    ['a.b_c-d=1', 'a.b_c-d=1'],
  ])('parses %j as %j', (text, canonical) => {
    expect(parseSelector(text).toString()).toBe(canonical);
  });

  it('returns Everything for empty or blank input', () => {
    expect(parseSelector('')).toBe(Everything);
    expect(parseSelector('   ')).toBe(Everything);
  });

  it('reads = and == as In with one value and != as NotIn with one value', () => {
    expect(parseSelector('a=b').requirements()).toEqual([{ key: 'a', operator: 'In', values: ['b'] }]);
    expect(parseSelector('a==b').requirements()).toEqual([{ key: 'a', operator: 'In', values: ['b'] }]);
    expect(parseSelector('a!=b').requirements()).toEqual([{ key: 'a', operator: 'NotIn', values: ['b'] }]);
    expect(parseSelector('a').requirements()).toEqual([{ key: 'a', operator: 'Exists', values: [] }]);
    expect(parseSelector('!a').requirements()).toEqual([{ key: 'a', operator: 'DoesNotExist', values: [] }]);
    expect(parseSelector('a in (c,b,c)').requirements()).toEqual([{ key: 'a', operator: 'In', values: ['b', 'c'] }]);
  });

  it('sorts requirements by key, then In, NotIn, Exists, DoesNotExist, then values', () => {
    expect(parseSelector('z,!y,x=1,a notin (q)').toString()).toBe('a!=q,x=1,!y,z');
    expect(parseSelector('!a,a,a!=b,a=c').toString()).toBe('a=c,a!=b,a,!a');
    expect(parseSelector('a in (b,c),a=b').toString()).toBe('a=b,a in (b,c)');
    expect(parseSelector('a=c,a=b').toString()).toBe('a=b,a=c');
  });

  it('drops exact duplicate requirements but keeps merely equivalent ones', () => {
    expect(parseSelector('a=b,a==b,a in (b)').toString()).toBe('a=b');
    expect(parseSelector('a!=b,a!=c').toString()).toBe('a!=b,a!=c');
  });

  it('gives equal strings for equal selectors written differently', () => {
    const forms = ['a=b,c in (e,d),!f', ' !f , c in (d,e,d), a==b', 'c in (d,e),a in (b),!f,!f'];
    const strings = new Set(forms.map((f) => parseSelector(f).toString()));
    expect([...strings]).toEqual(['a=b,c in (d,e),!f']);
  });

  it('accepts keys and values at the maximum lengths', () => {
    const key = `${prefix253}/${name63}`;
    expect(parseSelector(`${key}=${value63}`).requirements()).toEqual([{ key, operator: 'In', values: [value63] }]);
  });
});

describe('parseSelector: malformed input always throws with input and position', () => {
  it.each<[string, number, string]>([
    ['a=b,', 4, 'expected a label key or "!" but found end of input'],
    [',a', 0, 'expected a label key or "!" but found ","'],
    ['a,,b', 2, 'expected a label key or "!" but found ","'],
    [' a=b , ', 7, 'expected a label key or "!" but found end of input'],
    ['=b', 0, 'expected a label key or "!" but found "="'],
    ['(a)', 0, 'expected a label key or "!" but found "("'],
    ['a b', 2, 'after key "a" but found "b"'],
    ['a IN (b)', 2, 'after key "a" but found "IN"'],
    ['a!b', 1, 'after key "a" but found "!"'],
    ['a in b', 5, 'expected "(" after "in" but found "b"'],
    ['a notin', 7, 'expected "(" after "notin" but found end of input'],
    ['a in (b', 7, 'expected "," or ")" but found end of input'],
    ['a in (b c)', 8, 'expected "," or ")" but found "c"'],
    ['a in (b,=)', 8, 'expected a value, "," or ")" but found "="'],
    ['a in (b))', 8, 'expected "," or end of input after a requirement but found ")"'],
    ['a in ()', 5, 'empty value list "()": "in" needs at least one value (for the empty value write "a=")'],
    ['a notin ( )', 8, 'empty value list "()": "notin" needs at least one value (for the empty value write "a!=")'],
    ['!a=b', 2, 'expected "," or end of input after a requirement but found "="'],
    ['!a in (b)', 3, 'expected "," or end of input after a requirement but found "in"'],
    ['!', 1, 'expected a label key after "!" but found end of input'],
    ['!!a', 1, 'expected a label key after "!" but found "!"'],
    ['a=b=c', 3, 'expected "," or end of input after a requirement but found "="'],
    ['a=b c', 4, 'expected "," or end of input after a requirement but found "c"'],
    ['a=(b)', 2, 'expected a value after "=" but found "("'],
    ['a === b', 4, 'expected a value after "==" but found "="'],
    ['a>1', 1, 'operator ">" is not supported'],
    ['a<1', 1, 'operator "<" is not supported'],
    ['a >= 1', 2, 'operator ">" is not supported'],
    ['a@=b', 0, 'key "a@" is invalid: name must consist of'],
    ['x,-a', 2, 'key "-a" is invalid: name must consist of'],
    ['a/b/c', 0, 'key "a/b/c" is invalid: must be a name with an optional DNS subdomain prefix and one "/"'],
    ['/a', 0, 'key "/a" is invalid: prefix before "/" must not be empty'],
    ['a/', 0, 'key "a/" is invalid: name must not be empty'],
    ['Example.com/a', 0, 'key "Example.com/a" is invalid: prefix must be a DNS-1123 subdomain'],
    ['ex_ample.com/a', 0, 'key "ex_ample.com/a" is invalid: prefix must be a DNS-1123 subdomain'],
    [`${'k'.repeat(64)}=b`, 0, 'name must be at most 63 characters (has 64)'],
    [`${prefix253}x/a`, 0, 'prefix must be at most 253 characters (has 254)'],
    [`a=${'v'.repeat(64)}`, 2, `value "${'v'.repeat(64)}" of key "a" is invalid: must be at most 63 characters (has 64)`],
    ['a=-b', 2, 'value "-b" of key "a" is invalid'],
    ['a=b_', 2, 'value "b_" of key "a" is invalid'],
    ['a in (b,c@)', 8, 'value "c@" of key "a" is invalid'],
    ['a=b\u0000c', 2, 'value "b\\u0000c" of key "a" is invalid'],
    ['a=b\u00a0', 2, 'value "b\u00a0" of key "a" is invalid'],
    ['é=b', 0, 'key "é" is invalid'],
    ['<nothing>', 0, 'expected a label key or "!" but found "<"'],
  ])('rejects %j at position %i', (text, position, fragment) => {
    const err = parseError(text);
    expect(err.name).toBe('SelectorError');
    expect(err.input).toBe(text);
    expect(err.position).toBe(position);
    expect(err.message).toContain(JSON.stringify(text));
    expect(err.message).toContain(fragment);
    expect(err.message).toContain(`at position ${position}`);
  });

  it('rejects a non-string at run time instead of treating it as Everything', () => {
    expect(() => parseSelector(undefined as unknown as string)).toThrow(SelectorError);
    expect(() => parseSelector(null as unknown as string)).toThrow('expected a string but got object');
  });
});
