import type { KubeAccess, KubeNonResourceVerb, KubeResourceAccess, KubeResourceVerb } from './kubeAccessOf.js';

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
