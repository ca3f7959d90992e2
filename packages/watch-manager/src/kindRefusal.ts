import { apiStatusOf, KindNotServedError, WatchForbiddenError, type GroupVersionResource, type KindUnavailableError } from '@protean/core';
import { kindUnavailableOf } from '@protean/core/internal';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import { serverOf } from './unfixableFailure.js';

/**
 * The kind refusal a failed list or watch of `gvr` is, if it is one: a 404
 * (the resource is not served) or a 403 (RBAC refuses the verb), or a
 * {@link KindUnavailableError} already. `namespace`: the one the list/watch
 * is limited to. Any other failure: undefined.
 */
export function kindRefusalOf(gvr: GroupVersionResource, err: unknown, namespace?: string): KindUnavailableError | undefined {
  const known = kindUnavailableOf(err);
  if (known !== undefined) return known;
  const status = apiStatusOf(err)?.code;
  if (status !== 404 && status !== 403) return undefined;
  const details = { namespace, status, server: serverOf(err), cause: err };
  if (status === 404) return new KindNotServedError(gvr, details);
  const verb = err instanceof KubernetesRequestError ? err.verb.toLowerCase() : 'list';
  return new WatchForbiddenError(gvr, verb, details);
}
