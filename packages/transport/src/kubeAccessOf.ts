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
 * One parse: the fields of a {@link KubeAccess} as strings (`''` when
 * absent). The parser fills one shared object, so a parse allocates only
 * the substrings it keeps; read it before the next parse.
 */
export interface ParsedKubeAccess {
  resource: boolean;
  verb: string;
  group: string;
  name: string;
  subresource: string;
  namespace: string;
  /** Set for a non-resource URL: the path without its query. */
  path: string;
}

const parsed: ParsedKubeAccess = { resource: false, verb: '', group: '', name: '', subresource: '', namespace: '', path: '' };
/** Segment bounds of the path being parsed; the longest resource path has 9 segments (apis/g/v/watch/namespaces/ns/r/n/sub). */
const MAX_SEGMENTS = 9;
const starts: number[] = new Array<number>(MAX_SEGMENTS).fill(0);
const ends: number[] = new Array<number>(MAX_SEGMENTS).fill(0);

/** Parses `method` and `pathAndQuery` into the shared {@link ParsedKubeAccess} (see {@link kubeAccessOf} for the rules). */
export function parseKubeAccess(method: string, pathAndQuery: string): ParsedKubeAccess {
  const p = parsed;
  const queryAt = pathAndQuery.indexOf('?');
  const pathEnd = queryAt < 0 ? pathAndQuery.length : queryAt;
  if (!parseResource(p, method, pathAndQuery, pathEnd, queryAt)) {
    p.resource = false;
    p.verb = nonResourceVerb(method);
    p.path = queryAt < 0 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
    p.group = p.name = p.subresource = p.namespace = '';
  }
  return p;
}

function parseResource(p: ParsedKubeAccess, method: string, pq: string, pathEnd: number, queryAt: number): boolean {
  if (pathEnd < 2 || pq.charCodeAt(0) !== 47 /* / */) return false;
  // A trailing slash is the same path.
  const end = pq.charCodeAt(pathEnd - 1) === 47 ? pathEnd - 1 : pathEnd;
  let n = 0;
  for (let pos = 1; ;) {
    const slash = pq.indexOf('/', pos);
    const segEnd = slash < 0 || slash >= end ? end : slash;
    if (segEnd === pos || n === MAX_SEGMENTS) return false; // an empty segment (`//`), or too many
    starts[n] = pos;
    ends[n] = segEnd;
    n += 1;
    if (segEnd === end) break;
    pos = segEnd + 1;
  }
  const is = (i: number, text: string): boolean => ends[i]! - starts[i]! === text.length && pq.startsWith(text, starts[i]);
  const seg = (i: number): string => pq.slice(starts[i], ends[i]);
  let at: number;
  if (is(0, 'api')) {
    if (n < 3) return false; // /api, /api/<version>: discovery
    p.group = '';
    at = 2;
  } else if (is(0, 'apis')) {
    if (n < 4) return false; // /apis, /apis/<group>, /apis/<group>/<version>: discovery
    p.group = seg(1);
    at = 3;
  } else return false;
  let watchPrefix = false;
  if (is(at, 'watch')) {
    watchPrefix = true;
    at += 1;
  }
  p.namespace = '';
  if (n - at >= 2 && is(at, 'namespaces')) {
    p.namespace = seg(at + 1);
    // namespaces/<ns>/<resource>/...; but namespaces/<ns>/status and /finalize are the namespace's own subresources.
    if (n - at >= 3 && !is(at + 2, 'status') && !is(at + 2, 'finalize')) at += 2;
  }
  // The rest: <resource> [<name> [<subresource>]]
  const count = n - at;
  if (count === 0 || count > 3) return false;
  const verb = verbOf(method, count >= 2, watchPrefix, pq, queryAt);
  if (verb === undefined) return false;
  p.resource = true;
  p.verb = verb;
  p.name = seg(at);
  p.subresource = count === 3 ? seg(at + 2) : '';
  p.path = '';
  return true;
}

/** The key of a parse, as {@link kubeAccessKey} gives it for the access; `verb` overrides the parsed verb. */
export function keyOfParsed(p: ParsedKubeAccess, verb: string = p.verb): string {
  return p.resource ? `${verb}|${p.group}|${p.name}|${p.subresource}|${p.namespace}` : `nonResource|${verb}|${p.path}`;
}

/** The access of a parse, as a new object; `verb` overrides the parsed verb. */
export function accessOfParsed(p: ParsedKubeAccess, verb: string = p.verb): KubeAccess {
  if (!p.resource) return { kind: 'nonResource', verb: verb as KubeNonResourceVerb, path: p.path };
  const access: { -readonly [K in keyof KubeResourceAccess]: KubeResourceAccess[K] } = {
    kind: 'resource',
    verb: verb as KubeResourceVerb,
    group: p.group,
    resource: p.name,
  };
  if (p.subresource !== '') access.subresource = p.subresource;
  if (p.namespace !== '') access.namespace = p.namespace;
  return access;
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
function isWatchQuery(pq: string, queryAt: number): boolean {
  if (queryAt < 0) return false;
  for (let i = pq.indexOf('watch', queryAt); i >= 0; i = pq.indexOf('watch', i + 5)) {
    const before = pq.charCodeAt(i - 1);
    const after = i + 5;
    const next = pq.charCodeAt(after);
    // The parameter `watch` itself: after `?` or `&`, followed by `=`, `&` or the end.
    if ((before !== 63 /* ? */ && before !== 38) /* & */ || (after < pq.length && next !== 61 /* = */ && next !== 38)) continue;
    if (next !== 61) return true;
    const valueEnd = pq.indexOf('&', after + 1);
    const value = pq.slice(after + 1, valueEnd < 0 ? pq.length : valueEnd);
    return value !== '0' && value.toLowerCase() !== 'false';
  }
  return false;
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
