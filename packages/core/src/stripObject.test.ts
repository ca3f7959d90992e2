import { describe, expect, it } from '@jest/globals';
import type { CachedObject } from './informer.js';
import { objectTransformOf, stripObject } from './stripObject.js';

function configMap(): CachedObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'a',
      namespace: 'ns',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"big":true}', team: 'shop' },
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    } as CachedObject['metadata'],
    data: { k: 'v' },
  };
}

describe('stripObject', () => {
  it('drops managedFields and the last-applied annotation, and keeps everything else', () => {
    expect(stripObject(configMap())).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns', annotations: { team: 'shop' } },
      data: { k: 'v' },
    });
  });

  it('runs a user transform after the default trim', () => {
    const seen: unknown[] = [];
    const transform = objectTransformOf({
      transform: (obj) => {
        seen.push(obj.metadata.annotations);
        delete obj['data'];
        return obj;
      },
    });
    expect(transform(configMap())).not.toHaveProperty('data');
    expect(seen).toEqual([{ team: 'shop' }]);
  });
});
