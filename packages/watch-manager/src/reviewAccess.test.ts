import { describe, expect, it } from '@jest/globals';
import { apiStatusOf, isNotFound, KubeApiError } from '@protean/core';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from '@protean/transport';
import { reviewAccess } from './reviewAccess.js';

/** A transport that answers every request with `answer`, and keeps what it was sent. */
function answering(answer: KubeHttpResponse): KubeTransport & { readonly sent: KubeHttpRequest[] } {
  const sent: KubeHttpRequest[] = [];
  return {
    sent,
    send: (request) => {
      sent.push(request);
      return Promise.resolve(answer);
    },
  };
}

function status(code: number, reason: string, message: string): KubeHttpResponse {
  return { status: code, headers: {}, body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', code, reason, message }) };
}

const WATCH_GIZMOS = { verb: 'watch', group: 'example.com', resource: 'gizmos', namespace: 'n' };

describe('reviewAccess', () => {
  it('posts a SelfSubjectAccessReview of the attributes and returns what the server answered', async () => {
    const allowed = answering({ status: 201, headers: {}, body: JSON.stringify({ status: { allowed: true } }) });
    await expect(reviewAccess(allowed, WATCH_GIZMOS)).resolves.toBe(true);
    expect(allowed.sent[0]?.method).toBe('POST');
    expect(allowed.sent[0]?.path).toBe('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews');
    expect(JSON.parse(allowed.sent[0]?.body ?? '{}')).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: WATCH_GIZMOS },
    });
    const denied = answering({ status: 201, headers: {}, body: JSON.stringify({ status: { allowed: false } }) });
    await expect(reviewAccess(denied, WATCH_GIZMOS)).resolves.toBe(false);
  });

  it('rejects an error status with a KubeApiError of the review request that core reads as any API error', async () => {
    const forbidden = answering(status(403, 'Forbidden', 'selfsubjectaccessreviews is forbidden'));
    const err = await reviewAccess(forbidden, WATCH_GIZMOS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({
      status: 403,
      reason: 'Forbidden',
      serverMessage: 'selfsubjectaccessreviews is forbidden',
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    });
    expect(apiStatusOf(err)).toEqual({ code: 403, reason: 'Forbidden', message: 'selfsubjectaccessreviews is forbidden' });

    // A server without the review API (the in-memory one): a 404 of the whole resource.
    const unserved = await reviewAccess(answering(status(404, 'NotFound', 'the server could not find the requested resource')), {}).catch(
      (e: unknown) => e,
    );
    expect(unserved).toBeInstanceOf(KubeApiError);
    expect(isNotFound(unserved)).toBe(true);
  });
});
