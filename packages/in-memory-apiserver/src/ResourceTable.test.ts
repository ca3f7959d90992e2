import { describe, expect, it } from '@jest/globals';
import { ResourceTable, type StoreEvent } from './ResourceTable.js';
import { toServedResource } from './ServedResource.js';
import type { KubeObject } from './types.js';

const def = toServedResource({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true });

function obj(ns: string, name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } };
}

describe('ResourceTable', () => {
  it('keeps keys in byte order and finds a namespace as one contiguous range', () => {
    const t = new ResourceTable(def, 10, 0);
    for (const [ns, n] of [
      ['a-b', 'x'],
      ['a', 'z'],
      ['a', 'y'],
      ['b', 'q'],
    ] as const)
      t.put(`${ns}/${n}`, obj(ns, n));
    expect(t.sortedKeys()).toEqual(['a-b/x', 'a/y', 'a/z', 'b/q']);
    const [lo, hi] = t.namespaceRange('a');
    expect(t.sortedKeys().slice(lo, hi)).toEqual(['a/y', 'a/z']);
    t.remove('a/y');
    expect(t.sortedKeys()).toEqual(['a-b/x', 'a/z', 'b/q']);
    expect(t.indexAfter('a/y')).toBe(1);
  });

  it('keeps only the last historyWindow events and moves the resumable floor past evicted ones', () => {
    const t = new ResourceTable(def, 2, 0);
    const ev = (rv: number): StoreEvent => ({ type: 'ADDED', rv, key: `n/${rv}`, object: obj('n', String(rv)) });
    for (const rv of [1, 2, 3]) t.record(ev(rv));
    expect(t.oldestResumable()).toBe(1);
    expect(t.eventsAfter(1).map((e) => e.rv)).toEqual([2, 3]);
    t.forgetHistory(3);
    expect(t.oldestResumable()).toBe(3);
    expect(t.eventsAfter(3)).toEqual([]);
  });
});
