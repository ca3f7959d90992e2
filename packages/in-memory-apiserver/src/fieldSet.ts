import { isJsonObject } from './mergePatch.js';
import type { KubeObject } from './types.js';

/**
 * Field ownership as the fake models it: a set of paths into an object,
 * each a list of `fieldsV1` segments (`f:data`, `f:a`) joined by
 * {@link SEP}. A path names a leaf (a scalar, a list, an empty map) or a
 * map itself: owning a map means owning its existence (`.` in `fieldsV1`
 * when the owner also owns fields inside it). Lists are atomic: one leaf,
 * whatever their items, except `metadata.ownerReferences`, a list keyed by
 * `uid` as on the real server: each item is a field of its own
 * (`k:{"uid":"..."}`, an atomic value), so managers share the list and an
 * apply merges its items into it by uid.
 */
export type FieldPaths = Set<string>;

const SEP = '\u0000';
/** The value of a map's own path in {@link fieldValues}. */
export const MAP: unique symbol = Symbol('map');

/** Metadata the server owns: never part of a manager's fields. */
export const SYSTEM_METADATA: ReadonlySet<string> = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

/** Lists whose items are fields of their own, keyed by one field: the list's path -> its key field. */
const KEYED_LISTS: ReadonlyMap<string, string> = new Map([[['f:metadata', 'f:ownerReferences'].join(SEP), 'uid']]);

/** The key field of the keyed list at `path`, if `value` is one (an array of objects each with a string key). */
export function keyedListField(path: string, value: unknown): string | undefined {
  const field = KEYED_LISTS.get(path);
  if (field === undefined || !Array.isArray(value)) return undefined;
  return value.every((item) => isJsonObject(item) && typeof item[field] === 'string') ? field : undefined;
}

/** The `fieldsV1` segment of a keyed list item: `k:{"uid":"..."}`. */
export function itemSegment(field: string, key: string): string {
  return `k:${JSON.stringify({ [field]: key })}`;
}

/** `[field, key]` of a `k:` segment with one string key, else undefined. */
function parseItemSegment(segment: string): [string, string] | undefined {
  if (!segment.startsWith('k:')) return undefined;
  try {
    const entries = Object.entries(JSON.parse(segment.slice(2)) as Record<string, unknown>);
    const [only] = entries;
    return entries.length === 1 && only !== undefined && typeof only[1] === 'string' ? [only[0], only[1]] : undefined;
  } catch {
    return undefined;
  }
}

/** Which part of an object a write addresses. */
export type FieldScope = 'all' | 'status' | 'notStatus';

/** How {@link fieldValues} reads an object. */
export interface FieldReading {
  readonly scope: FieldScope;
  /**
   * Which maps count as fields of their own, as kube-apiserver records
   * them: `update` (every map but `metadata`, and for built-ins also
   * `spec` and `status`, which are structs there) or `apply` (for custom
   * resources every map outside `metadata`; for built-ins none).
   */
  readonly maps: 'update' | 'apply';
  readonly builtin: boolean;
}

/**
 * The paths of `obj` and the value at each ({@link MAP} for a map's own
 * path), within `reading.scope`; `apiVersion`, `kind` and system metadata
 * are never included.
 */
export function fieldValues(obj: KubeObject | Record<string, unknown>, reading: FieldReading): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const { scope, maps, builtin } = reading;
  const visit = (v: unknown, path: string[], inMetadata: boolean): void => {
    const keyField = keyedListField(path.join(SEP), v);
    if (keyField !== undefined && (v as unknown[]).length > 0) {
      // An Update also owns the list's existence, as it does a map's.
      if (maps === 'update') out.set(path.join(SEP), MAP);
      for (const item of v as Array<Record<string, unknown>>)
        out.set([...path, itemSegment(keyField, item[keyField] as string)].join(SEP), item);
      return;
    }
    if (!isJsonObject(v) || Object.keys(v).length === 0) {
      out.set(path.join(SEP), v);
      return;
    }
    const top = path.length === 1 ? path[0] : undefined;
    const own = maps === 'update' ? !(builtin && (top === 'f:spec' || top === 'f:status')) : !builtin && !inMetadata;
    if (own) out.set(path.join(SEP), MAP);
    for (const [k, child] of Object.entries(v)) if (child !== undefined) visit(child, [...path, `f:${k}`], inMetadata);
  };
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || v === undefined) continue;
    if (scope === 'status' ? k !== 'status' : scope === 'notStatus' && k === 'status') continue;
    if (k === 'metadata') {
      if (!isJsonObject(v)) continue;
      for (const [mk, mv] of Object.entries(v)) {
        if (!SYSTEM_METADATA.has(mk) && mv !== undefined) visit(mv, ['f:metadata', `f:${mk}`], true);
      }
      continue;
    }
    visit(v, [`f:${k}`], false);
  }
  return out;
}

/**
 * The `fieldsV1` tree of `paths`: a path with owned paths below it gets a
 * `.` entry for itself; one without is `{}`.
 */
export function toFieldsV1(paths: Iterable<string>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const owned = new Set(paths);
  for (const path of [...owned].sort()) {
    let node = root;
    const segments = path.split(SEP);
    segments.forEach((segment, i) => {
      const child = (node[segment] ??= {}) as Record<string, unknown>;
      // An owned map that also holds owned fields marks itself with '.'.
      if (i < segments.length - 1 && owned.has(segments.slice(0, i + 1).join(SEP))) child['.'] = {};
      node = child;
    });
  }
  return root;
}

/** The paths of a `fieldsV1` tree (`.` and an empty node both mean "this path is owned"). */
export function fromFieldsV1(tree: Record<string, unknown> | undefined): FieldPaths {
  const out: FieldPaths = new Set();
  const visit = (node: Record<string, unknown>, path: string[]): void => {
    const keys = Object.keys(node);
    if (path.length > 0 && (keys.length === 0 || keys.includes('.'))) out.add(path.join(SEP));
    for (const k of keys) {
      if (k === '.') continue;
      const child = node[k];
      visit(isJsonObject(child) ? child : {}, [...path, k]);
    }
  };
  if (tree !== undefined) visit(tree, []);
  return out;
}

/** The path of `fieldsV1` segments (the inverse of {@link segmentsOf}). */
export function pathOf(segments: readonly string[]): string {
  return segments.join(SEP);
}

/** The `fieldsV1` segments of a path (`['f:data', 'f:a']`). */
export function segmentsOf(path: string): string[] {
  return path.split(SEP);
}

/** True when `path` is `prefix` or lies below it. */
export function isAtOrBelow(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + SEP);
}

/** The field path as the real server prints it in conflicts: `.data.a`, `.metadata.ownerReferences[uid="u"]`. */
export function printPath(path: string): string {
  return path
    .split(SEP)
    .map((s) => {
      const item = parseItemSegment(s);
      if (item !== undefined) return `[${item[0]}=${JSON.stringify(item[1])}]`;
      return `.${s.startsWith('f:') ? s.slice(2) : s}`;
    })
    .join('');
}

/** The value at `path` in `obj`, or undefined. */
export function valueAt(obj: unknown, path: string): unknown {
  let node: unknown = obj;
  for (const segment of path.split(SEP)) {
    const item = parseItemSegment(segment);
    if (item !== undefined) {
      node = Array.isArray(node) ? node.find((i) => isJsonObject(i) && i[item[0]] === item[1]) : undefined;
      continue;
    }
    if (!isJsonObject(node) || !segment.startsWith('f:')) return undefined;
    node = node[segment.slice(2)];
  }
  return node;
}

/**
 * Deletes the field at `path` from `obj` (in place), then every map on the
 * way up that this left empty, unless `keep` says someone owns that map.
 */
export function removeAt(obj: Record<string, unknown>, path: string, keep: (mapPath: string) => boolean): void {
  const segments = path.split(SEP);
  const item = parseItemSegment(segments[segments.length - 1] ?? '');
  if (item !== undefined) {
    // An item of a keyed list: the list one up loses it, and goes when emptied (unless someone owns it).
    removeItem(obj, segments.slice(0, -1), item, keep);
    return;
  }
  const chain: Array<Record<string, unknown>> = [obj];
  for (const segment of segments.slice(0, -1)) {
    const next = chain[chain.length - 1]?.[segment.slice(2)];
    if (!isJsonObject(next)) return;
    chain.push(next);
  }
  const last = segments[segments.length - 1];
  if (last === undefined) return;
  delete chain[chain.length - 1]?.[last.slice(2)];
  for (let depth = chain.length - 1; depth >= 1; depth--) {
    const map = chain[depth] as Record<string, unknown>;
    const ownPath = segments.slice(0, depth).join(SEP);
    // metadata stays; other maps emptied by a removal go, as the real server prunes them.
    if (Object.keys(map).length > 0 || (depth === 1 && segments[0] === 'f:metadata') || keep(ownPath)) break;
    delete chain[depth - 1]?.[(segments[depth - 1] as string).slice(2)];
  }
}

function removeItem(
  obj: Record<string, unknown>,
  listSegments: string[],
  [field, key]: [string, string],
  keep: (p: string) => boolean,
): void {
  const listPath = listSegments.join(SEP);
  const list = valueAt(obj, listPath);
  if (!Array.isArray(list)) return;
  const at = list.findIndex((i) => isJsonObject(i) && i[field] === key);
  if (at < 0) return;
  list.splice(at, 1);
  if (list.length === 0 && !keep(listPath)) removeAt(obj, listPath, keep);
}
