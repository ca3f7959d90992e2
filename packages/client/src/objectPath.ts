import { type GroupVersionResource } from '@protean/core';
import { validateGroupVersionResource, validateNamespace, validateObjectName } from '@protean/core/internal';

/**
 * The URL path of a collection (`name` undefined), an object, or an
 * object's subresource: `/api/v1/namespaces/{ns}/configmaps/{name}` for the
 * core group, `/apis/{group}/{version}/...` otherwise; without a namespace
 * (or with `""`) the cluster-scoped (or all-namespaces) form.
 *
 * Throws core's `InvalidGroupVersionResourceError` or
 * `InvalidObjectNameError` before anything is sent when a part breaks
 * Kubernetes' naming rules, so a name can never address another path.
 */
export function objectPath(gvr: GroupVersionResource, namespace: string | undefined, name?: string, subresource?: string): string {
  validateGroupVersionResource(gvr);
  const enc = encodeURIComponent;
  let path = gvr.group === '' ? `/api/${enc(gvr.version)}` : `/apis/${enc(gvr.group)}/${enc(gvr.version)}`;
  if (namespace !== undefined && namespace !== '') {
    validateNamespace(namespace);
    path += `/namespaces/${enc(namespace)}`;
  }
  path += `/${enc(gvr.resource)}`;
  if (name !== undefined) {
    validateObjectName(name);
    path += `/${enc(name)}`;
    if (subresource !== undefined) path += `/${enc(subresource)}`;
  }
  return path;
}
