import { describe, expect, it } from '@jest/globals';
import { LAST_APPLIED_ANNOTATION, trimMetadata } from './trimMetadata.js';

describe('trimMetadata', () => {
  it('keeps only the metadata a controller needs and drops managedFields, spec and last-applied', () => {
    const raw = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cm',
        namespace: 'default',
        uid: 'u-1',
        resourceVersion: '42',
        generation: 3,
        creationTimestamp: '2024-01-01T00:00:00Z',
        deletionTimestamp: '2024-01-02T00:00:00Z',
        labels: { app: 'web' },
        annotations: { note: 'x', [LAST_APPLIED_ANNOTATION]: '{"huge":true}' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u-0' }],
        finalizers: ['keep'],
        managedFields: [{ manager: 'kubectl', fieldsV1: {} }],
        selfLink: '/api/v1/namespaces/default/configmaps/cm',
      },
      data: { big: 'x'.repeat(1024) },
    };
    expect(trimMetadata(raw)).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: {
        name: 'cm',
        namespace: 'default',
        uid: 'u-1',
        resourceVersion: '42',
        generation: 3,
        creationTimestamp: '2024-01-01T00:00:00Z',
        deletionTimestamp: '2024-01-02T00:00:00Z',
        labels: { app: 'web' },
        annotations: { note: 'x' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u-0' }],
        finalizers: ['keep'],
      },
    });
  });

  it('omits the namespace of cluster-scoped objects and interns namespaces', () => {
    expect(trimMetadata({ metadata: { name: 'n1' } })?.metadata).toEqual({ name: 'n1' });
    const seen: string[] = [];
    trimMetadata({ metadata: { name: 'a', namespace: 'ns' } }, (s) => {
      seen.push(s);
      return s;
    });
    expect(seen).toEqual(['ns']);
  });

  it('returns undefined for anything without metadata.name', () => {
    expect(trimMetadata(null)).toBeUndefined();
    expect(trimMetadata({ kind: 'Status' })).toBeUndefined();
    expect(trimMetadata({ metadata: { namespace: 'x' } })).toBeUndefined();
  });
});
