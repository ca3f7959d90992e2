import { describe, expect, it } from '@jest/globals';
import { resourceVersionAtLeast } from './resourceVersionAtLeast.js';

describe('resourceVersionAtLeast', () => {
  it('compares kube-apiserver resourceVersions as integers, not as strings', () => {
    expect(resourceVersionAtLeast('100', '99')).toBe(true);
    expect(resourceVersionAtLeast('99', '100')).toBe(false);
    expect(resourceVersionAtLeast('1000', '999')).toBe(true);
    expect(resourceVersionAtLeast('12345678901234567890', '12345678901234567889')).toBe(true);
    expect(resourceVersionAtLeast('42', '42')).toBe(true);
  });

  it('knows an opaque (non-integer) version is reached only when it is equal', () => {
    expect(resourceVersionAtLeast('abc', 'abc')).toBe(true);
    expect(resourceVersionAtLeast('abd', 'abc')).toBe(false);
    expect(resourceVersionAtLeast('100', 'x1')).toBe(false);
    expect(resourceVersionAtLeast('0100', '99')).toBe(false);
  });

  it('treats a write without a version as reached and a cached object without one as behind', () => {
    expect(resourceVersionAtLeast(undefined, undefined)).toBe(true);
    expect(resourceVersionAtLeast('5', '')).toBe(true);
    expect(resourceVersionAtLeast(undefined, '5')).toBe(false);
  });
});
