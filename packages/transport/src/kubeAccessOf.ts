import { accessOfParsed, parseKubeAccess } from './parseKubeAccess.js';

/** The RBAC verbs of requests for resources, as kube-apiserver derives them from method and path. */
export type KubeResourceVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** The RBAC verbs of requests for non-resource URLs: the method in lower case. */
export type KubeNonResourceVerb = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * A request for an API resource as RBAC sees it: verb, API group (`''` for
 * the core group), resource and subresource, and the namespace it was made
 * in. Versions and object names are not part of it.
 */
export interface KubeResourceAccess {
  readonly kind: 'resource';
  readonly verb: KubeResourceVerb;
  /** `''` for the core group (`/api/v1/...`). */
  readonly group: string;
  readonly resource: string;
  /** `status`, `scale`, `eviction`, ...; unset for the resource itself. */
  readonly subresource?: string;
  /**
   * The namespace of the path; unset for cluster-scoped resources and for
   * requests across all namespaces. As in kube-apiserver, a request for
   * the namespace object `x` itself (`/api/v1/namespaces/x`) counts as
   * made in namespace `x`, so a Role in `x` may grant it.
   */
  readonly namespace?: string;
}

/** A request for anything that is not an API resource: discovery, `/version`, `/openapi/...`, health endpoints. */
export interface KubeNonResourceAccess {
  readonly kind: 'nonResource';
  readonly verb: KubeNonResourceVerb;
  /** The path without its query. */
  readonly path: string;
}

/** What RBAC checks for one request. */
export type KubeAccess = KubeResourceAccess | KubeNonResourceAccess;

/**
 * The RBAC access of a request, by the rules kube-apiserver applies to its
 * method and path: `GET` of a named object is `get`, of a collection
 * `list`, or `watch` with a `watch` parameter other than `0`/`false` (or under the legacy
 * `/watch/` prefix); `POST` is `create`, `PUT` `update`, `PATCH` `patch`,
 * `DELETE` of a named object `delete` and of a collection
 * `deletecollection`. `/api/v1/...` is the core group, `/apis/<group>/<version>/...`
 * the others; `namespaces/<ns>/<resource>` is namespaced, `namespaces/<ns>/status`
 * and `namespaces/<ns>/finalize` are subresources of the namespace object.
 * Everything else (`/api`, `/apis`, `/apis/<group>/<version>` discovery,
 * `/version`, `/openapi/...`, and paths that are not well formed, such as
 * empty segments or too many of them) is a non-resource URL.
 *
 * Easy to get wrong: the access is a function of the path alone; an
 * update that creates the object (`PUT` or server-side apply answered 201)
 * is also checked as `create` by the server, which only the answer tells
 * (the connection pool's `AccessLog` records it).
 */
export function kubeAccessOf(method: string, pathAndQuery: string): KubeAccess {
  return accessOfParsed(parseKubeAccess(method, pathAndQuery));
}

/**
 * A stable text key of an access (`patch|apps|deployments|scale|demo`,
 * `nonResource|get|/version`): equal accesses have equal keys.
 */
export function kubeAccessKey(access: KubeAccess): string {
  return access.kind === 'resource'
    ? `${access.verb}|${access.group}|${access.resource}|${access.subresource ?? ''}|${access.namespace ?? ''}`
    : `nonResource|${access.verb}|${access.path}`;
}

/**
 * The access in words, as error messages and logs show it:
 * `patch configmaps in namespace demo`, `watch webapps.demo.protean.dev cluster-wide`,
 * `update webapps.demo.protean.dev/status in namespace demo`, `get path /version`.
 */
export function describeKubeAccess(access: KubeAccess): string {
  if (access.kind === 'nonResource') return `${access.verb} path ${access.path}`;
  const resource = `${access.resource}${access.group === '' ? '' : `.${access.group}`}${access.subresource === undefined ? '' : `/${access.subresource}`}`;
  return `${access.verb} ${resource} ${access.namespace === undefined ? 'cluster-wide' : `in namespace ${access.namespace}`}`;
}
