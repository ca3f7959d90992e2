import { describe, expect, it } from '@jest/globals';
import { ApiError } from './ApiError.js';
import { negotiate } from './negotiate.js';

describe('negotiate', () => {
  it('serves full objects for plain JSON, wildcards and no Accept header', () => {
    expect(negotiate(undefined, 'list')).toBe('full');
    expect(negotiate('application/json', 'object')).toBe('full');
    expect(negotiate('*/*', 'list')).toBe('full');
  });

  it('serves metadata only for the matching as= form, falling back along the list', () => {
    expect(negotiate('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json', 'list')).toBe('partial');
    expect(negotiate('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', 'object')).toBe('partial');
    expect(negotiate('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json', 'list')).toBe('full');
    expect(negotiate('application/json;as=Table;g=meta.k8s.io;v=v1,application/json', 'list')).toBe('full');
  });

  it('throws 406 when no alternative can be served', () => {
    expect(() => negotiate('application/vnd.kubernetes.protobuf', 'list')).toThrow(ApiError);
    let err: unknown;
    try {
      negotiate('application/json;as=Table;g=meta.k8s.io;v=v1', 'list');
    } catch (e) {
      err = e;
    }
    expect((err as ApiError).code).toBe(406);
  });
});
