import { describe, expect, it } from '@jest/globals';
import { jsonPatch, JsonPatchError } from './jsonPatch.js';

describe('jsonPatch (RFC 6902)', () => {
  it('applies add, remove, replace, move, copy and test in order without touching the input', () => {
    const doc = { a: { b: 1 }, list: ['x', 'y'], 'k/e~y': 1 };
    const out = jsonPatch(doc, [
      { op: 'add', path: '/list/-', value: 'z' },
      { op: 'add', path: '/list/0', value: 'w' },
      { op: 'remove', path: '/list/1' },
      { op: 'replace', path: '/a/b', value: 2 },
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'move', from: '/k~1e~0y', path: '/moved' },
      { op: 'test', path: '/c/b', value: 2 },
    ]);
    expect(out).toEqual({ a: { b: 2 }, c: { b: 2 }, list: ['w', 'y', 'z'], moved: 1 });
    expect(doc).toEqual({ a: { b: 1 }, list: ['x', 'y'], 'k/e~y': 1 });
  });

  it('throws JsonPatchError for a failed test, a missing path or an unknown operation', () => {
    expect(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(JsonPatchError);
    expect(() => jsonPatch({ a: 1 }, [{ op: 'remove', path: '/nope' }])).toThrow('does not exist');
    expect(() => jsonPatch({ a: 1 }, [{ op: 'frobnicate', path: '/a' }])).toThrow('unknown JSON patch operation');
    expect(() => jsonPatch({ a: 1 }, { op: 'add' })).toThrow('must be an array');
  });
});
