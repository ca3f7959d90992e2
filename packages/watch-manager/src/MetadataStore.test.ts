import { describe, expect, it } from '@jest/globals';
import type { PartialObjectMetadata } from '@protean/core';
import { MetadataStore } from './MetadataStore.js';

const o = (name: string, namespace?: string): PartialObjectMetadata => ({
  apiVersion: 'meta.k8s.io/v1',
  kind: 'PartialObjectMetadata',
  metadata: namespace === undefined ? { name } : { name, namespace },
});

describe('MetadataStore', () => {
  it('stores by namespace and name, returning what a set replaced', () => {
    const s = new MetadataStore();
    const a1 = o('a', 'x');
    expect(s.set(a1)).toBeUndefined();
    expect(s.set(o('a', 'y'))).toBeUndefined();
    expect(s.set(o('a', 'x'))).toBe(a1);
    expect(s.set(o('c'))).toBeUndefined();
    expect(s.size).toBe(3);
    expect(s.get('', 'c')?.metadata.name).toBe('c');
  });

  it('deletes, keeping size right and ignoring unknown keys', () => {
    const s = new MetadataStore();
    s.set(o('a', 'x'));
    expect(s.delete('x', 'missing')).toBeUndefined();
    expect(s.delete('x', 'a')?.metadata.name).toBe('a');
    expect(s.size).toBe(0);
    expect(s.list()).toEqual([]);
  });

  it('keys objects as client-go does', () => {
    expect(MetadataStore.keyOf(o('a', 'x'))).toBe('x/a');
    expect(MetadataStore.keyOf(o('node-1'))).toBe('node-1');
  });
});
