import type { KubernetesRequestError } from './KubernetesRequestError.js';

/**
 * Statuses that answer a streaming list exactly as they would answer a
 * LIST (not allowed, not served, conflict, expired, throttled, timed out):
 * retried as failures, never a reason to stop streaming.
 */
const SAME_FOR_LIST = new Set([401, 403, 404, 408, 409, 410, 429]);

/**
 * True when `err` says the server does not serve a list as a streaming
 * watch: any other 4xx answer to the request (a kube-apiserver without the
 * WatchList feature answers 422 Invalid, some aggregated API servers 400),
 * or a stream that ended, or timed out, without its
 * `k8s.io/initial-events-end` bookmark (a server that ignores
 * `sendInitialEvents` streams a plain watch).
 */
export function refusesStreamingList(err: KubernetesRequestError): boolean {
  if (err.reason === 'InitialEventsEndMissing') return true;
  const status = err.status;
  return status !== undefined && status >= 400 && status < 500 && !SAME_FOR_LIST.has(status) && err.verb === 'WATCH';
}
