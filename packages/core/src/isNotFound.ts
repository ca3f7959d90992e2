import { apiStatusChain } from './apiStatus.js';

/**
 * True when `err` is a Kubernetes 404: an `ApiException` from
 * `@kubernetes/client-node` (`code: 404`), an HTTP error carrying
 * `status`/`statusCode: 404`, a `Status` body with `code: 404` or
 * `reason: "NotFound"`, or any of these as the `cause` of a wrapping error.
 */
export function isNotFound(err: unknown): boolean {
  for (const status of apiStatusChain(err)) {
    if (status.code === 404 || status.reason === 'NotFound') return true;
  }
  return false;
}
