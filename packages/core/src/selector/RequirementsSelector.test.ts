import { describe, expect, it } from '@jest/globals';
import { parseSelector } from './parseSelector.js';
import { RequirementsSelector } from './RequirementsSelector.js';

type Labels = Record<string, string>;

function expectMatches(selector: string, cases: ReadonlyArray<[Labels, boolean]>): void {
  const s = parseSelector(selector);
  for (const [labels, expected] of cases) {
    expect([selector, labels, s.matches(labels)]).toEqual([selector, labels, expected]);
  }
}

describe('RequirementsSelector.matches', () => {
  it('In needs the key present with one of the values', () => {
    expectMatches('a=b', [
      [{ a: 'b' }, true],
      [{ a: 'c' }, false],
      [{}, false],
      [{ b: 'b' }, false],
    ]);
    expectMatches('a in (b,c)', [
      [{ a: 'c' }, true],
      [{ a: 'b', x: 'y' }, true],
      [{ a: 'd' }, false],
      [{}, false],
    ]);
  });

  it('NotIn is satisfied by an absent key, as in Kubernetes', () => {
    expectMatches('a!=b', [
      [{}, true],
      [{ x: 'b' }, true],
      [{ a: 'c' }, true],
      [{ a: 'b' }, false],
    ]);
    expectMatches('a notin (b,c)', [
      [{}, true],
      [{ a: 'd' }, true],
      [{ a: 'b' }, false],
      [{ a: 'c' }, false],
    ]);
  });

  it('Exists and DoesNotExist look only at the key, including an empty value', () => {
    expectMatches('a', [
      [{ a: '' }, true],
      [{}, false],
    ]);
    expectMatches('!a', [
      [{}, true],
      [{ a: '' }, false],
    ]);
  });

  it('the empty value is a value like any other', () => {
    expectMatches('a=', [
      [{ a: '' }, true],
      [{}, false],
      [{ a: 'x' }, false],
    ]);
    expectMatches('a!=', [
      [{}, true],
      [{ a: 'x' }, true],
      [{ a: '' }, false],
    ]);
    expectMatches('a in (,x)', [
      [{ a: '' }, true],
      [{ a: 'x' }, true],
      [{ a: 'y' }, false],
    ]);
  });

  it('ANDs all requirements', () => {
    expectMatches('a=b,c notin (d),e,!f', [
      [{ a: 'b', e: '1' }, true],
      [{ a: 'b', c: 'x', e: '1' }, true],
      [{ a: 'b', c: 'd', e: '1' }, false],
      [{ a: 'b' }, false],
      [{ a: 'b', e: '1', f: '' }, false],
      [{ e: '1' }, false],
    ]);
    expectMatches('a=b,a=c', [
      [{ a: 'b' }, false],
      [{ a: 'c' }, false],
    ]);
  });

  it('never finds keys on Object.prototype', () => {
    expectMatches('constructor', [
      [{}, false],
      [{ constructor: 'x' }, true],
    ]);
    expectMatches('!toString', [[{}, true]]);
    expectMatches('hasOwnProperty!=x', [[{}, true]]);
    expectMatches('valueOf in (a,b)', [[{}, false]]);
    expectMatches('constructor=', [[{}, false]]);
  });

  it('works on label maps without a prototype', () => {
    const labels = Object.assign(Object.create(null) as Labels, { a: 'b' });
    expect(parseSelector('a=b,!c').matches(labels)).toBe(true);
    expect(parseSelector('a notin (b)').matches(labels)).toBe(false);
  });
});

describe('RequirementsSelector', () => {
  it('exposes frozen, canonical requirements and reports empty() only without requirements', () => {
    const s = new RequirementsSelector([
      { key: 'b', operator: 'In', values: ['y', 'x', 'y'] },
      { key: 'a', operator: 'Exists', values: [] },
    ]);
    expect(s.requirements()).toEqual([
      { key: 'a', operator: 'Exists', values: [] },
      { key: 'b', operator: 'In', values: ['x', 'y'] },
    ]);
    expect(Object.isFrozen(s.requirements())).toBe(true);
    expect(Object.isFrozen(s.requirements()[1])).toBe(true);
    expect(Object.isFrozen(s.requirements()[1]!.values)).toBe(true);
    expect(s.toString()).toBe('a,b in (x,y)');
    expect(s.empty()).toBe(false);
    expect(s.matchesNothing()).toBe(false);
    expect(new RequirementsSelector([]).empty()).toBe(true);
  });

  it('does not share state with the requirements it was built from', () => {
    const values = ['x'];
    const s = new RequirementsSelector([{ key: 'a', operator: 'In', values }]);
    values.push('y');
    expect(s.toString()).toBe('a=x');
    expect(s.matches({ a: 'y' })).toBe(false);
  });
});
