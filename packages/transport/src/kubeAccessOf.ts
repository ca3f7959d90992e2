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
  const queryAt = pathAndQuery.indexOf('?');
  const path = queryAt < 0 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
  const access = resourceAccessOf(method, path, pathAndQuery, queryAt);
  return access ?? { kind: 'nonResource', verb: nonResourceVerb(method), path };
}

function resourceAccessOf(method: string, path: string, pathAndQuery: string, queryAt: number): KubeResourceAccess | undefined {
  if (path.length < 2 || path.charCodeAt(0) !== 47 /* / */ || path.includes('//')) return undefined;
  const parts = (path.endsWith('/') ? path.slice(1, -1) : path.slice(1)).split('/');
  let group: string;
  let at: number;
  if (parts[0] === 'api') {
    // /api/<version>/...
    if (parts.length < 3) return undefined;
    group = '';
    at = 2;
  } else if (parts[0] === 'apis') {
    // /apis/<group>/<version>/...
    if (parts.length < 4) return undefined;
    group = parts[1]!;
    at = 3;
  } else return undefined;
  let watchPrefix = false;
  if (parts[at] === 'watch') {
    watchPrefix = true;
    at += 1;
  }
  let namespace: string | undefined;
  let rest = parts.slice(at);
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1]!;
    // namespaces/<ns>/<resource>/...; but namespaces/<ns>/status and /finalize are the namespace's own subresources.
    if (rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
  }
  // rest: <resource> [<name> [<subresource>]]
  if (rest.length === 0 || rest.length > 3) return undefined;
  const resource = rest[0]!;
  const named = rest.length >= 2;
  const subresource = rest[2];
  if (resource === '' || (named && rest[1] === '') || subresource === '') return undefined;
  const verb = verbOf(method, named, watchPrefix, pathAndQuery, queryAt);
  if (verb === undefined) return undefined;
  return {
    kind: 'resource',
    verb,
    group,
    resource,
    ...(subresource === undefined ? {} : { subresource }),
    ...(namespace === undefined ? {} : { namespace }),
  };
}

function verbOf(method: string, named: boolean, watchPrefix: boolean, pathAndQuery: string, queryAt: number): KubeResourceVerb | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watchPrefix || isWatchQuery(pathAndQuery, queryAt)) return 'watch';
      return named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/** As kube-apiserver decodes `watch`: present, and its first value neither `0` nor `false` (any case; empty counts as true). */
function isWatchQuery(pathAndQuery: string, queryAt: number): boolean {
  if (queryAt < 0) return false;
  // Cheap first: most requests have no watch parameter at all.
  if (!pathAndQuery.includes('watch', queryAt)) return false;
  const value = new URLSearchParams(pathAndQuery.slice(queryAt + 1)).get('watch');
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

function nonResourceVerb(method: string): KubeNonResourceVerb {
  switch (method) {
    case 'POST':
      return 'post';
    case 'PUT':
      return 'put';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'get';
  }
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
