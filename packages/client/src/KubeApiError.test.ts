import { describe, expect, it } from '@jest/globals';
import { kindUnavailableOf, KindNotServedError } from '@protean/core';
import { KubeApiError } from './KubeApiError.js';

const gizmos = { group: 'example.com', version: 'v1', resource: 'gizmos' };
const request = {
  method: 'APPLY',
  path: '/apis/example.com/v1/namespaces/n/gizmos/g',
  target: 'gizmos.example.com n/g',
  gvr: gizmos,
  namespace: 'n',
};

function answer(status: number, reason: string, message: string): KubeApiError {
  return KubeApiError.fromResponse(request, {
    status,
    headers: {},
    body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, reason, message }),
  });
}

describe('KubeApiError: a kind that is going away or gone', () => {
  it('carries a KindNotServedError for the 403 of a write while the kind CRD is being deleted', () => {
    const err = answer(
      403,
      'Forbidden',
      'gizmos.example.com "g" is forbidden: create not allowed while custom resource definition is terminating',
    );
    const refusal = kindUnavailableOf(err);
    expect(refusal).toBeInstanceOf(KindNotServedError);
    expect(refusal).toMatchObject({ gvr: gizmos, namespace: 'n', status: 403 });
  });

  it('carries none for a 403 that is a permission', () => {
    expect(
      kindUnavailableOf(answer(403, 'Forbidden', 'gizmos.example.com "g" is forbidden: User "u" cannot patch resource "gizmos"')),
    ).toBeUndefined();
  });
});
