import { describe, expect, it } from '@jest/globals';
import { ApplyConflictError } from './ApplyConflictError.js';
import type { StatusBody } from '@protean/core/internal';

// As kube-apiserver v1.36 answers an apply that conflicts with an Apply manager and an Update manager.
const body: StatusBody = {
  kind: 'Status',
  code: 409,
  reason: 'Conflict',
  message: 'Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\nconflicts with "carol" using v1:\n- .data.b',
  details: {
    causes: [
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "carol" using v1', field: '.data.b' },
    ],
  },
};

describe('ApplyConflictError', () => {
  it('names each conflicting field and the manager that owns it', () => {
    const err = new ApplyConflictError(
      { method: 'APPLY', path: '/api/v1/namespaces/d/configmaps/a', target: 'configmaps d/a' },
      body,
      'bob',
    );
    expect(err.conflicts).toEqual([
      { field: '.data.a', manager: 'alice', detail: 'conflict with "alice"' },
      { field: '.data.b', manager: 'carol', detail: 'conflict with "carol" using v1' },
    ]);
    expect(err).toMatchObject({ name: 'ApplyConflictError', status: 409, reason: 'Conflict', fieldManager: 'bob' });
    expect(err.message).toBe(
      'APPLY configmaps d/a: server-side apply as "bob" conflicts with other managers on .data.a (alice), .data.b (carol); ' +
        'stop setting these fields or apply with force: true to take them over',
    );
  });

  it('tells an apply conflict from a stale-resourceVersion conflict', () => {
    expect(ApplyConflictError.isApplyConflict(409, body)).toBe(true);
    expect(
      ApplyConflictError.isApplyConflict(409, {
        kind: 'Status',
        code: 409,
        reason: 'Conflict',
        details: { name: 'a', kind: 'configmaps' },
      }),
    ).toBe(false);
  });

  it('reads a manager name with quotes in it', () => {
    const tricky: StatusBody = {
      ...body,
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "a \\"b\\"" using v1', field: '.x' }] },
    };
    const err = new ApplyConflictError({ method: 'APPLY', path: '/x', target: 'x' }, tricky, 'm');
    expect(err.conflicts[0]!.manager).toBe('a "b"');
  });
});
