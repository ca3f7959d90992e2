import { type GroupVersionResource } from '@protean/core';
import { validateGroupVersionResource, validateNamespace } from '@protean/core/internal';

/**
 * The collection URL path of `gvr`: `/api/v1/{resource}` for the core
 * group, `/apis/{group}/{version}/{resource}` otherwise, with
 * `/namespaces/{namespace}` before the resource when `namespace` is given.
 * Without a namespace the path lists every namespace of a namespaced
 * resource, and is the only form a cluster-scoped resource accepts.
 *
 * Throws core's `InvalidGroupVersionResourceError` or
 * `InvalidObjectNameError` when `gvr` or `namespace` breaks Kubernetes'
 * naming rules: percent-encoding alone would let `namespaces/default/configmaps`
 * (decoded by the server) or `..` (normalised by the URL) address another path.
 */
export function resourcePath(gvr: GroupVersionResource, namespace?: string): string {
  validateGroupVersionResource(gvr);
  if (namespace !== undefined) validateNamespace(namespace);
  const enc = encodeURIComponent;
  const base = gvr.group === '' ? `/api/${enc(gvr.version)}` : `/apis/${enc(gvr.group)}/${enc(gvr.version)}`;
  const ns = namespace === undefined || namespace === '' ? '' : `/namespaces/${enc(namespace)}`;
  return `${base}${ns}/${enc(gvr.resource)}`;
}
