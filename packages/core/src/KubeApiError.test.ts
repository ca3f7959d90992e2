import { describe, expect, it } from '@jest/globals';
import { apiStatusOf, summarizeError } from './apiStatus.js';
import { isNotFound } from './isNotFound.js';
import { kindUnavailableOf, KindNotServedError } from './KindUnavailableError.js';
import { KubeApiError } from './KubeApiError.js';
import { networkErrorCause } from './networkErrorCause.js';
import { UNSERVED_RESOURCE_HINT } from './unservedResourceHint.js';

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

describe('KubeApiError.fromResponse', () => {
  it('names the request, the status, the reason and the server message, and keeps the Status body', () => {
    const err = answer(409, 'Conflict', 'the object has been modified');
    expect(err.message).toBe('APPLY gizmos.example.com n/g: 409 Conflict: the object has been modified');
    expect(err).toMatchObject({
      name: 'KubeApiError',
      status: 409,
      reason: 'Conflict',
      serverMessage: 'the object has been modified',
      method: 'APPLY',
      path: request.path,
      retryAfterMs: undefined,
    });
    expect(err.body?.code).toBe(409);
  });

  it('says the code of a plain-text 404 once, adds the unserved-resource hint and carries the kind as its cause', () => {
    const err = KubeApiError.fromResponse(request, { status: 404, headers: {}, body: '404 page not found\n' });
    expect(err.message).toBe(`APPLY gizmos.example.com n/g: 404 page not found (${UNSERVED_RESOURCE_HINT})`);
    expect(err.body).toBeUndefined();
    expect(err.serverMessage).toBe('404 page not found');
    expect(err.cause).toBeInstanceOf(KindNotServedError);
  });

  it('takes Retry-After in seconds, else the body’s retryAfterSeconds', () => {
    expect(KubeApiError.fromResponse(request, { status: 429, headers: { 'retry-after': '3' }, body: '' }).retryAfterMs).toBe(3000);
    const body = JSON.stringify({ kind: 'Status', code: 429, details: { retryAfterSeconds: 2 } });
    expect(KubeApiError.fromResponse(request, { status: 429, headers: {}, body }).retryAfterMs).toBe(2000);
    expect(KubeApiError.fromResponse(request, { status: 429, headers: { 'retry-after': '-1' }, body: '' }).retryAfterMs).toBeUndefined();
  });
});

describe('KubeApiError from its fields (what a subclass with a message of its own builds)', () => {
  it('keeps the message given, takes reason and server message from the body unless given, and an empty path by default', () => {
    const err = new KubeApiError({
      message: 'WATCH example.com/v1/gizmos failed: 410 Expired: too old resource version',
      method: 'WATCH',
      status: 410,
      body: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' },
    });
    expect(err.message).toBe('WATCH example.com/v1/gizmos failed: 410 Expired: too old resource version');
    expect(err).toMatchObject({ status: 410, reason: 'Expired', serverMessage: 'too old resource version', path: '', method: 'WATCH' });
  });

  it('is a failure without an answer when it has no status: core reads no API status, but the network failure', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    const err = new KubeApiError({ message: 'get lease n/l failed: request failed', method: 'GET', reason: 'NetworkError', cause });
    expect(err).toMatchObject({ status: undefined, reason: 'NetworkError', serverMessage: '', body: undefined });
    expect(apiStatusOf(err)).toBeUndefined();
    expect(isNotFound(err)).toBe(false);
    expect(networkErrorCause(err)).toBe('ECONNREFUSED');
  });
});

describe("core's predicates read a KubeApiError by its fields", () => {
  it('reads a status and reason given without a Status body', () => {
    const err = new KubeApiError({ message: 'update lease n/l failed: 404 NotFound', method: 'PUT', status: 404, reason: 'NotFound' });
    expect(apiStatusOf(err)).toEqual({ code: 404, reason: 'NotFound' });
    expect(isNotFound(err)).toBe(true);
    expect(summarizeError(err)).toBe('404 NotFound: update lease n/l failed: 404 NotFound');
  });

  it('reads the message and the object named by the Status body, also as the cause of another error', () => {
    const err = KubeApiError.fromResponse(request, {
      status: 404,
      headers: {},
      body: JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound', message: 'gizmos "g" not found', details: { name: 'g' } }),
    });
    const wrapped = new Error('reconcile failed', { cause: err });
    expect(apiStatusOf(wrapped)).toEqual({ code: 404, reason: 'NotFound', message: 'gizmos "g" not found', name: 'g' });
    expect(isNotFound(wrapped)).toBe(true);
    expect(summarizeError(wrapped)).toBe('404 NotFound: gizmos "g" not found');
  });
});
