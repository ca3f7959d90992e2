import { KubeApiError } from '@protean/core';
import { type RequestDescription } from '@protean/core/internal';
import type { KubeTransport } from '@protean/transport';

const SSAR_PATH = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SSAR_REQUEST: RequestDescription = Object.freeze({ method: 'POST', path: SSAR_PATH, target: 'selfsubjectaccessreviews' });

/** The longest one review may take; a review not answered by then rejects (with `AbortSignal.timeout`'s error). */
const REVIEW_TIMEOUT_MS = 10_000;

/**
 * One `SelfSubjectAccessReview`: whether the API server would allow the
 * caller `attributes` (`verb`, `group`, `resource`, and `namespace` when
 * namespaced) now. An error status (the review API forbidden or not
 * served) rejects with core's `KubeApiError` of the review request, so
 * `apiStatusOf` and the other predicates read it as any API error.
 *
 * Easy to get wrong: `false` is the server's answer ("not allowed"); a
 * rejection means there was no answer to go by.
 */
export async function reviewAccess(transport: KubeTransport, attributes: Readonly<Record<string, string>>): Promise<boolean> {
  const res = await transport.send({
    method: 'POST',
    path: SSAR_PATH,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: attributes },
    }),
    signal: AbortSignal.timeout(REVIEW_TIMEOUT_MS),
  });
  if (res.status !== 201 && res.status !== 200) throw KubeApiError.fromResponse(SSAR_REQUEST, res);
  const review = JSON.parse(res.body) as { status?: { allowed?: unknown } };
  return review.status?.allowed === true;
}
