import { type KubeConfigLike, sharedConnectionPool, type AccessLog, type AccessRecord, type KubeConnectionPool } from '@protean/transport';
import { type KubeNonResourceVerb, type KubeResourceVerb } from '@protean/transport/internal';
import { grantedToEveryone } from './grantedToEveryone.js';

/** One verb used on a resource, with where. */
export interface UsedVerb {
  readonly verb: KubeResourceVerb;
  /** The namespaces it was used in, sorted; `''` stands for cluster-wide (a cluster-scoped resource, or all namespaces). */
  readonly namespaces: readonly string[];
  /** The namespaces (`''`: cluster-wide) where the latest answer refused it. */
  readonly denied: readonly string[];
  /**
   * Set on a `list` no request made: the informers' lists are streamed as
   * watches (`sendInitialEvents`, authorized as `watch` only) but fall back
   * to a paginated LIST when the server or its watch cache cannot stream,
   * so a streaming list brings `list` where it was made.
   */
  readonly impliedBy?: 'watch';
}

/** One resource (with its subresource, as RBAC names it: `webapps/status`) and the verbs used on it. */
export interface UsedResource {
  /** `''` for the core group. */
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  /** The verbs in RBAC's usual order (get, list, watch, create, update, patch, delete, deletecollection). */
  readonly verbs: readonly UsedVerb[];
}

/** A non-resource URL used, and with which verbs. */
export interface UsedNonResourceUrl {
  readonly path: string;
  readonly verbs: readonly KubeNonResourceVerb[];
  /** The verbs whose latest answer was a refusal. */
  readonly denied: readonly KubeNonResourceVerb[];
  /** Every authenticated user may use it (discovery, `/version`, `/openapi`, health): no Role needs to grant it. */
  readonly grantedToEveryone: boolean;
}

/** What a controller used: {@link permissionsUsed}'s answer. */
export interface PermissionsUsed {
  /** Sorted by group, resource, subresource. */
  readonly resources: readonly UsedResource[];
  /** Sorted by path. */
  readonly nonResourceUrls: readonly UsedNonResourceUrl[];
}

/** The JSON `@protean/metrics` serves at `/statusz/permissions`: the access log's entries. */
export interface AccessLogJson {
  readonly accesses: readonly AccessRecord[];
}

/** Options of {@link permissionsUsed}. */
export interface PermissionsUsedOptions {
  /**
   * Report `list` wherever a streaming list (a `watch` with
   * `sendInitialEvents=true`) was made (see {@link UsedVerb.impliedBy}).
   * Default true: an informer may LIST at any relist.
   */
  readonly listWithWatch?: boolean;
}

/** Where {@link permissionsUsed} reads the accesses from. */
export type PermissionsSource = KubeConfigLike | KubeConnectionPool | AccessLog | AccessLogJson | readonly AccessRecord[];

const VERB_ORDER: readonly KubeResourceVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * The permissions used so far through a connection pool, grouped per
 * resource (with subresource) with the verbs used and their namespaces.
 * Give it the controller's `KubeConfig` (its `sharedConnectionPool`, which
 * every Protean package uses by default), a `KubeConnectionPool`, its
 * `AccessLog`, or the JSON a controller serves at `/statusz/permissions`.
 *
 * Easy to get wrong: it is what was used *until now*. A code path that did
 * not run (a delete, a finalizer, an Event of a rare reason) is missing;
 * run the controller through its whole lifecycle before reading it. A copy
 * of the KubeConfig has a pool of its own, so pass the very object the
 * controller was given.
 */
export function permissionsUsed(source: PermissionsSource, options: PermissionsUsedOptions = {}): PermissionsUsed {
  return groupAccesses(recordsOf(source), options);
}

function recordsOf(source: PermissionsSource): readonly AccessRecord[] {
  if (Array.isArray(source)) return source as readonly AccessRecord[];
  const s = source as Partial<KubeConnectionPool & AccessLog & AccessLogJson>;
  if (Array.isArray(s.accesses)) return s.accesses;
  if (typeof s.entries === 'function' && typeof s.onTransition === 'function') return s.entries();
  if (s.accessLog !== undefined) return s.accessLog.entries();
  if (typeof (source as KubeConfigLike).getCurrentCluster === 'function')
    return sharedConnectionPool(source as KubeConfigLike).accessLog.entries();
  throw new TypeError(
    'permissionsUsed: expected a KubeConfig, a KubeConnectionPool, an AccessLog or { accesses: [...] } (the JSON of /statusz/permissions)',
  );
}

interface VerbUse {
  readonly used: Set<string>;
  readonly denied: Set<string>;
  /** Where a `watch` was a streaming list. */
  readonly streaming: Set<string>;
  /** No request used it: added for streaming lists (`listWithWatch`). */
  readonly implied?: boolean;
}

/** Groups access records per resource and per non-resource URL (see {@link permissionsUsed}). */
export function groupAccesses(records: readonly AccessRecord[], options: PermissionsUsedOptions = {}): PermissionsUsed {
  const resources = new Map<string, { group: string; resource: string; subresource?: string; verbs: Map<string, VerbUse> }>();
  const urls = new Map<string, { verbs: Set<KubeNonResourceVerb>; denied: Set<KubeNonResourceVerb> }>();
  for (const record of records) {
    const a = record.access;
    if (a.kind === 'nonResource') {
      let u = urls.get(a.path);
      if (u === undefined) urls.set(a.path, (u = { verbs: new Set(), denied: new Set() }));
      u.verbs.add(a.verb);
      if (record.denied) u.denied.add(a.verb);
      continue;
    }
    const key = `${a.group}|${a.resource}|${a.subresource ?? ''}`;
    let r = resources.get(key);
    if (r === undefined) {
      r = {
        group: a.group,
        resource: a.resource,
        ...(a.subresource === undefined ? {} : { subresource: a.subresource }),
        verbs: new Map(),
      };
      resources.set(key, r);
    }
    let v = r.verbs.get(a.verb);
    if (v === undefined) r.verbs.set(a.verb, (v = { used: new Set(), denied: new Set(), streaming: new Set() }));
    v.used.add(a.namespace ?? '');
    if (record.denied) v.denied.add(a.namespace ?? '');
    if (record.streamingList === true) v.streaming.add(a.namespace ?? '');
  }
  if (options.listWithWatch ?? true) {
    for (const r of resources.values()) {
      const watch = r.verbs.get('watch');
      if (watch === undefined || watch.streaming.size === 0) continue;
      let list = r.verbs.get('list');
      if (list === undefined) r.verbs.set('list', (list = { used: new Set(), denied: new Set(), streaming: new Set(), implied: true }));
      for (const ns of watch.streaming) list.used.add(ns);
    }
  }
  return {
    resources: [...resources.values()]
      .sort((x, y) => compare(x.group, y.group) || compare(x.resource, y.resource) || compare(x.subresource ?? '', y.subresource ?? ''))
      .map(({ verbs, ...r }) => ({
        ...r,
        verbs: VERB_ORDER.filter((verb) => verbs.has(verb)).map((verb) => {
          const v = verbs.get(verb)!;
          return {
            verb,
            namespaces: [...v.used].sort(compare),
            denied: [...v.denied].sort(compare),
            ...(v.implied === true ? { impliedBy: 'watch' as const } : {}),
          };
        }),
      })),
    nonResourceUrls: [...urls.entries()]
      .sort(([a], [b]) => compare(a, b))
      .map(([path, u]) => ({
        path,
        verbs: [...u.verbs].sort(compare),
        denied: [...u.denied].sort(compare),
        grantedToEveryone: grantedToEveryone(path),
      })),
  };
}

/** `webapps/status`: the resource as an RBAC rule names it. */
export function rbacResourceName(r: { readonly resource: string; readonly subresource?: string | undefined }): string {
  return r.subresource === undefined ? r.resource : `${r.resource}/${r.subresource}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
