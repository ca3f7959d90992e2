import { describe, expect, it } from '@jest/globals';
import { jsonPatchBetween, type JsonPatchOperation } from './jsonPatch.js';

/** Applies the operations this module writes (add, replace, remove of object members and the root). */
function apply(doc: unknown, ops: readonly JsonPatchOperation[]): unknown {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      root = op.op === 'remove' ? undefined : structuredClone(op.value);
      continue;
    }
    const tokens = op.path
      .slice(1)
      .split('/')
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop()!;
    let parent = root as Record<string, unknown>;
    for (const t of tokens) parent = parent[t] as Record<string, unknown>;
    if (op.op === 'remove') {
      expect(last in parent).toBe(true);
      delete parent[last];
    } else {
      if (op.op === 'replace') expect(last in parent).toBe(true);
      else expect(last in parent).toBe(false);
      parent[last] = structuredClone(op.value);
    }
  }
  return root;
}

describe('jsonPatchBetween', () => {
  const before = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'x', gone: 'y' }, annotations: { 'a~b/c': '1' } },
    data: { list: '1' },
    spec: { ports: [1, 2], nested: { keep: true } },
  };

  it('adds, replaces and removes object members, escaping ~ and / in keys, and replaces a changed list whole', () => {
    const after = {
      ...before,
      metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'z', team: 'web' }, annotations: { 'a~b/c': '2' } },
      spec: { ports: [1, 2, 3], nested: { keep: true } },
    };
    const ops = jsonPatchBetween(before, after);
    expect(ops).toEqual([
      { op: 'remove', path: '/metadata/labels/gone' },
      { op: 'replace', path: '/metadata/labels/app.kubernetes.io~1name', value: 'z' },
      { op: 'add', path: '/metadata/labels/team', value: 'web' },
      { op: 'replace', path: '/metadata/annotations/a~0b~1c', value: '2' },
      { op: 'replace', path: '/spec/ports', value: [1, 2, 3] },
    ]);
    expect(apply(before, ops)).toEqual(after);
  });

  it('is empty for equal objects, and treats an undefined member as absent', () => {
    expect(jsonPatchBetween(before, structuredClone(before))).toEqual([]);
    const after = { ...before, data: undefined, extra: undefined };
    const ops = jsonPatchBetween(before, after);
    expect(ops).toEqual([{ op: 'remove', path: '/data' }]);
    expect(JSON.parse(JSON.stringify(apply(before, ops)))).toEqual(JSON.parse(JSON.stringify(after)));
  });

  it('replaces a member whose type changed', () => {
    expect(jsonPatchBetween({ a: { b: 1 } }, { a: 'x' })).toEqual([{ op: 'replace', path: '/a', value: 'x' }]);
  });
});
