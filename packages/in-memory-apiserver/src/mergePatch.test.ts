import { describe, expect, it } from '@jest/globals';
import { mergePatch } from './mergePatch.js';

describe('mergePatch (RFC 7386)', () => {
  it('merges objects recursively, deletes keys set to null and replaces arrays whole', () => {
    const target = { a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2, 3] };
    expect(mergePatch(target, { a: 'z', c: { f: null, h: 1 }, list: [9] })).toEqual({ a: 'z', c: { d: 'e', h: 1 }, list: [9] });
    expect(target).toEqual({ a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2, 3] });
  });

  it('replaces the target when the patch is not an object, and builds objects over non-objects', () => {
    expect(mergePatch({ a: 1 }, ['x'])).toEqual(['x']);
    expect(mergePatch({ a: 'scalar' }, { a: { b: 'c', d: null } })).toEqual({ a: { b: 'c' } });
  });
});
