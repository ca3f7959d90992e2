import { describe, expect, it } from '@jest/globals';
import { apiStatusOf, isNotFound, KubeApiError, summarizeError } from '@protean/core';
import { networkErrorCause } from '@protean/core/internal';
import { LeaseRequestError } from './LeaseRequestError.js';

const status = (code: number, reason: string, message: string): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

describe("LeaseRequestError is core's KubeApiError", () => {
  it('reads the status, the Status reason, message and body, and the Retry-After of an answer', () => {
    const err = LeaseRequestError.fromAnswer(
      'update',
      'ns/lease',
      { status: 429, headers: { 'retry-after': '4' }, body: status(429, 'TooManyRequests', 'slow down') },
      { path: '/apis/coordination.k8s.io/v1/namespaces/ns/leases/lease' },
    );
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err.message).toBe('update lease ns/lease failed: 429 TooManyRequests: slow down');
    expect(err).toMatchObject({
      name: 'LeaseRequestError',
      verb: 'update',
      lease: 'ns/lease',
      status: 429,
      reason: 'TooManyRequests',
      serverMessage: 'slow down',
      retryAfterMs: 4000,
      method: 'PUT',
      path: '/apis/coordination.k8s.io/v1/namespaces/ns/leases/lease',
      conflict: false,
    });
    expect(err.body).toMatchObject({ kind: 'Status', code: 429 });
    expect(apiStatusOf(err)).toEqual({ code: 429, reason: 'TooManyRequests', message: 'slow down' });
  });

  it('keeps the start of a body that is not JSON as the message, and says so when the body has none', () => {
    const text = LeaseRequestError.fromAnswer('get', 'ns/lease', { status: 502, headers: {}, body: 'bad gateway\n' });
    expect(text).toMatchObject({ status: 502, reason: undefined, serverMessage: 'bad gateway', body: undefined });
    expect(text.message).toBe('get lease ns/lease failed: 502: bad gateway');
    const none = LeaseRequestError.fromAnswer('get', 'ns/lease', { status: 500, headers: {}, body: '{}' });
    expect(none.message).toBe('get lease ns/lease failed: 500: no Status body');
  });

  it("is read by core's predicates when made from its fields, as the fakes make it", () => {
    const missing = new LeaseRequestError('update', 'ns/lease', '404 NotFound', { status: 404, reason: 'NotFound' });
    expect(missing).toBeInstanceOf(KubeApiError);
    expect(isNotFound(missing)).toBe(true);
    expect(summarizeError(missing)).toBe('404 NotFound: update lease ns/lease failed: 404 NotFound');
    const conflict = new LeaseRequestError('create', 'ns/lease', '409 AlreadyExists', { status: 409, reason: 'AlreadyExists' });
    expect(conflict.conflict).toBe(true);
    expect(apiStatusOf(conflict)).toEqual({ code: 409, reason: 'AlreadyExists' });
  });

  it('has no status for a call without an answer: core reads no API status but the network failure', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    const err = new LeaseRequestError('get', 'ns/lease', 'request failed: connect ECONNREFUSED', { reason: 'NetworkError', cause });
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ status: undefined, reason: 'NetworkError', method: 'GET', path: '' });
    expect(apiStatusOf(err)).toBeUndefined();
    expect(networkErrorCause(err)).toBe('ECONNREFUSED');
  });
});
