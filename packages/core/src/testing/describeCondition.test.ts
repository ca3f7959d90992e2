import { describe, expect, it } from '@jest/globals';
import { describeCondition } from './describeCondition.js';

describe('describeCondition', () => {
  const done: string[] = [];

  it('shows the expression an arrow function returns, without the arrow', () => {
    expect(describeCondition(() => done.length === 2)).toBe('done.length === 2');
    expect(describeCondition(async () => (await Promise.resolve(done)).length > 0)).toBe('(await Promise.resolve(done)).length > 0');
  });

  it('shows the returned expression of a block with a single return, and a longer block on one line', () => {
    expect(
      describeCondition(() => {
        return done.includes('prod/shop');
      }),
    ).toBe("done.includes('prod/shop')");
    expect(
      describeCondition(() => {
        const n = done.length;
        return n === 2;
      }),
    ).toBe('const n = done.length; return n === 2;');
  });

  it('names a named function and a bound one instead of showing their source', () => {
    function isReady(): boolean {
      return done.length === 1;
    }
    expect(describeCondition(isReady)).toBe('isReady()');
    expect(describeCondition(isReady.bind(null))).toBe('bound isReady()');
  });

  it('shows the body of an anonymous function expression', () => {
    expect(
      describeCondition(function () {
        return done.length === 3;
      }),
    ).toBe('done.length === 3');
  });

  it('cuts a long condition at 200 characters', () => {
    const text = describeCondition(
      () =>
        done.includes('the first instance whose name is long enough to matter') &&
        done.includes('the second instance whose name is long enough to matter') &&
        done.includes('the third instance whose name is long enough to matter') &&
        done.includes('the fourth instance whose name is long enough to matter'),
    );
    expect(text).toHaveLength(200);
    expect(text).toMatch(/^done\.includes\('the first instance whose name is long enough to matter'\) && done\.includes\(.*…$/);
  });
});
