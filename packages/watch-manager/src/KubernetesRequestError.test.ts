import { describe, expect, it } from '@jest/globals';
import { apiStatusOf, isNotFound, KubeApiError, summarizeError } from '@protean/core';
import { networkErrorCause } from '@protean/core/internal';
import { KubernetesRequestError } from './KubernetesRequestError.js';

const gvr = { group: 'apps', version: 'v1', resource: 'deployments' };

describe('KubernetesRequestError', () => {
  it('reads status, reason and message from a Status body and names the GVR', () => {
    const body = JSON.stringify({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
    const err = KubernetesRequestError.fromResponse(gvr, 'LIST', 404, undefined, body);
    expect(err.name).toBe('KubernetesRequestError');
    expect(err.status).toBe(404);
    expect(err.reason).toBe('NotFound');
    expect(err.message).toBe('LIST apps/v1/deployments failed: 404 NotFound: the server could not find the requested resource');
  });

  it('keeps a plain-text body as the message without its trailing newline', () => {
    const err = KubernetesRequestError.fromResponse(gvr, 'WATCH', 404, undefined, '404 page not found\n');
    expect(err.message).toBe('WATCH apps/v1/deployments failed: 404: 404 page not found');
    expect(err.body).toBeUndefined();
  });

  it('takes Retry-After from the header, else from Status details', () => {
    expect(KubernetesRequestError.fromResponse(gvr, 'WATCH', 429, '3', '').retryAfterMs).toBe(3000);
    const body = JSON.stringify({ code: 429, details: { retryAfterSeconds: 2 } });
    expect(KubernetesRequestError.fromResponse(gvr, 'WATCH', 429, undefined, body).retryAfterMs).toBe(2000);
  });

  it('recognises an expired resourceVersion as HTTP 410 and as an in-stream ERROR event', () => {
    expect(KubernetesRequestError.fromResponse(gvr, 'WATCH', 410, undefined, '').expired).toBe(true);
    const ev = KubernetesRequestError.fromStatus(gvr, {
      kind: 'Status',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version: 1 (5)',
    });
    expect(ev.expired).toBe(true);
    expect(ev.message).toContain('too old resource version');
    expect(KubernetesRequestError.fromStatus(gvr, { code: 500, reason: 'InternalError' }).expired).toBe(false);
  });

  it('recognises a too large resourceVersion', () => {
    const body = JSON.stringify({
      code: 504,
      reason: 'Timeout',
      message: 'Too large resource version: 99, current: 10',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
    });
    expect(KubernetesRequestError.fromResponse(gvr, 'LIST', 504, undefined, body).resourceVersionTooLarge).toBe(true);
    expect(KubernetesRequestError.fromResponse(gvr, 'LIST', 504, undefined, 'gateway timeout').resourceVersionTooLarge).toBe(false);
  });
});

describe("KubernetesRequestError is core's KubeApiError", () => {
  it('is a KubeApiError with the status, reason, Status body and wait of the answer, which core reads', () => {
    const body = JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' });
    const err = KubernetesRequestError.fromResponse(gvr, 'LIST', 410, '2', body, 'https://k8s:6443');
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({
      status: 410,
      reason: 'Expired',
      serverMessage: 'too old resource version: 1 (5)',
      retryAfterMs: 2000,
      method: 'LIST',
      server: 'https://k8s:6443',
    });
    expect(err.body).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(apiStatusOf(err)).toEqual({ code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' });
    expect(summarizeError(err)).toBe('410 Expired: too old resource version: 1 (5)');
  });

  it("is one for an in-stream ERROR event too, and core's isNotFound reads its 404", () => {
    const err = KubernetesRequestError.fromStatus(gvr, { kind: 'Status', code: 404, reason: 'NotFound', message: 'gone' });
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ status: 404, reason: 'NotFound', serverMessage: 'gone', method: 'WATCH' });
    expect(isNotFound(err)).toBe(true);
  });

  it('is one without a status for a failure without an answer, which core reads as a network failure and no API status', () => {
    const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const err = new KubernetesRequestError(gvr, 'WATCH', 'request failed: read ECONNRESET', { reason: 'ConnectionReset', cause });
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ status: undefined, reason: 'ConnectionReset', body: undefined, serverMessage: '' });
    expect(apiStatusOf(err)).toBeUndefined();
    expect(networkErrorCause(err)).toBe('ECONNRESET');
  });

  it("builds a plain KubeApiError through the form every KubeApiError's class has", () => {
    const request = { method: 'GET', path: '/apis/apps/v1/deployments', target: 'deployments.apps' };
    const err = KubernetesRequestError.fromResponse(request, { status: 500, headers: {}, body: 'boom' });
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).not.toBeInstanceOf(KubernetesRequestError);
    expect(err.message).toBe('GET deployments.apps: 500: boom');
  });
});
