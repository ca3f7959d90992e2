import { ApiError } from './ApiError.js';
import { deepEqual } from './deepEqual.js';
import {
  fieldValues,
  fromFieldsV1,
  isAtOrBelow,
  keyedListField,
  MAP,
  pathOf,
  printPath,
  removeAt,
  segmentsOf,
  SYSTEM_METADATA,
  toFieldsV1,
  valueAt,
  type FieldScope,
} from './fieldSet.js';
import { sortManagedFields, withoutPaths } from './managedFields.js';
import { isJsonObject } from './mergePatch.js';
import { statusBody } from './statusErrors.js';
import type { KubeObject, ManagedFieldsEntry } from './types.js';

/** What one server-side apply works on. */
export interface ApplyRequest {
  /** The stored object, or undefined when the apply creates it. */
  readonly live: KubeObject | undefined;
  /** The applied configuration (already checked to name this resource and object). */
  readonly applied: Record<string, unknown>;
  readonly manager: string;
  readonly force: boolean;
  /** Which part of the object this endpoint writes. */
  readonly scope: FieldScope;
  readonly subresource: 'status' | undefined;
  /** A built-in kind (typed maps are not fields of their own in an Apply set). */
  readonly builtin: boolean;
  /** The object to start from when there is none yet: apiVersion, kind, name, namespace. */
  readonly skeleton: KubeObject;
  readonly time: string;
}

/** The object and `managedFields` a server-side apply results in, before the store's usual write rules. */
export interface ApplyResult {
  readonly object: KubeObject;
  readonly managedFields: ManagedFieldsEntry[];
}

/**
 * Server-side apply for the common case, as kube-apiserver does it: the
 * manager's Apply entry becomes exactly the fields of the applied
 * configuration; a field another manager owns with a different value is a
 * conflict (409 naming each field and manager) unless `force`, which moves
 * it to this manager; fields this manager applied before and leaves out now
 * are removed unless another manager owns them; the applied configuration
 * is merged into the object (maps by key, lists and scalars replaced).
 *
 * Easy to get wrong: lists are atomic here, so two managers cannot share a
 * list by item keys (`finalizers` as a set, `conditions` by type) as they
 * can on a real server; `ownerReferences` alone merges by uid, as there.
 */
export function serverSideApply(req: ApplyRequest): ApplyResult {
  const { live, applied, manager, subresource } = req;
  const wanted = fieldValues(applied, { scope: req.scope, maps: 'apply', builtin: req.builtin });
  const previous = live?.metadata.managedFields ?? [];
  const isMine = (e: ManagedFieldsEntry): boolean => e.manager === manager && e.operation === 'Apply' && e.subresource === subresource;

  const conflicts: Array<{ owner: string; path: string }> = [];
  const forced = new Set<string>();
  for (const entry of previous) {
    if (isMine(entry)) continue;
    const owned = [...fromFieldsV1(entry.fieldsV1)];
    for (const [path, value] of wanted) {
      // Owning a map is owning its existence: no one conflicts over that.
      if (value === MAP || !owned.some((p) => isAtOrBelow(p, path)) || deepEqual(valueAt(live, path), value)) continue;
      if (req.force) forced.add(path);
      else conflicts.push({ owner: ownerText(entry), path });
    }
  }
  if (conflicts.length > 0) throw applyConflict(conflicts);

  const managedFields: ManagedFieldsEntry[] = [];
  let previouslyMine = new Set<string>();
  for (const entry of previous) {
    if (isMine(entry)) {
      previouslyMine = fromFieldsV1(entry.fieldsV1);
      continue;
    }
    const kept = forced.size === 0 ? entry : withoutPaths(entry, forced);
    if (kept !== undefined) managedFields.push(kept);
  }
  const othersOwn = new Set<string>(managedFields.flatMap((e) => [...fromFieldsV1(e.fieldsV1)]));

  const object = structuredClone(live ?? req.skeleton);
  for (const path of previouslyMine) {
    if (wanted.has(path) || [...othersOwn].some((p) => isAtOrBelow(p, path))) continue;
    removeAt(object as unknown as Record<string, unknown>, path, (dotPath) => othersOwn.has(dotPath));
  }
  mergeApplied(object, applied, req.scope);

  if (wanted.size > 0) {
    const mine: ManagedFieldsEntry = {
      manager,
      operation: 'Apply',
      apiVersion: String(applied['apiVersion']),
      time: req.time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(wanted.keys()),
    };
    if (subresource !== undefined) mine.subresource = subresource;
    managedFields.push(mine);
  }
  return { object, managedFields: sortManagedFields(managedFields) };
}

/** True when two `managedFields` lists differ in anything but their times (an apply that changes only ownership still commits). */
export function ownershipChanged(a: readonly ManagedFieldsEntry[] | undefined, b: readonly ManagedFieldsEntry[]): boolean {
  const untimed = (list: readonly ManagedFieldsEntry[]): unknown[] => list.map(({ time: _time, ...rest }) => rest);
  return !deepEqual(untimed(a ?? []), untimed(b));
}

/** Merges the applied configuration into `target` within `scope`: maps by key, anything else replaced; `null` removes. */
function mergeApplied(target: KubeObject, applied: Record<string, unknown>, scope: FieldScope): void {
  const t = target as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(applied)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (scope === 'status' ? k !== 'status' : scope === 'notStatus' && k === 'status') continue;
    if (k === 'metadata') {
      if (!isJsonObject(v)) continue;
      const meta = target.metadata as Record<string, unknown>;
      for (const [mk, mv] of Object.entries(v)) {
        if (SYSTEM_METADATA.has(mk)) continue;
        const keyField = keyedListField(pathOf(['f:metadata', `f:${mk}`]), mv);
        if (keyField !== undefined && Array.isArray(meta[mk]))
          mergeItems(meta[mk] as unknown[], mv as Array<Record<string, unknown>>, keyField);
        else mergeKey(meta, mk, mv);
      }
      continue;
    }
    mergeKey(t, k, v);
  }
}

/** Merges applied items into a keyed list: an item with a key already there replaces it, a new one is appended. */
function mergeItems(target: unknown[], items: ReadonlyArray<Record<string, unknown>>, keyField: string): void {
  for (const item of items) {
    const at = target.findIndex((t) => isJsonObject(t) && t[keyField] === item[keyField]);
    if (at < 0) target.push(structuredClone(item));
    else target[at] = structuredClone(item);
  }
}

function mergeKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value === null || value === undefined) {
    delete target[key];
  } else if (isJsonObject(value) && isJsonObject(target[key])) {
    for (const [k, v] of Object.entries(value)) mergeKey(target[key], k, v);
  } else {
    target[key] = structuredClone(value);
  }
}

/**
 * A manager as the real server names it in a conflict: `"alice"` (Apply),
 * `"bob" using v1` (Update), with ` with subresource "status"` after the
 * name for a subresource's entry.
 */
function ownerText(entry: ManagedFieldsEntry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource !== undefined && entry.subresource !== '') text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  return entry.operation === 'Update' ? `${text} using ${entry.apiVersion}` : text;
}

/**
 * The order kube-apiserver lists fields in: within a map, its own fields
 * (alphabetically) before the fields of the maps inside it.
 */
function comparePaths(a: string, b: string): number {
  const x = segmentsOf(a);
  const y = segmentsOf(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    const xLeaf = i === x.length - 1;
    const yLeaf = i === y.length - 1;
    if (xLeaf !== yLeaf) return xLeaf ? -1 : 1;
    return (x[i] as string) < (y[i] as string) ? -1 : 1;
  }
  return x.length - y.length;
}

/** 409 Conflict with one `FieldManagerConflict` cause per field, worded as kube-apiserver words it. */
function applyConflict(found: ReadonlyArray<{ owner: string; path: string }>): ApiError {
  const conflicts = [...found]
    .sort((a, b) => (a.owner === b.owner ? comparePaths(a.path, b.path) : a.owner < b.owner ? -1 : 1))
    .map((c) => ({ owner: c.owner, field: printPath(c.path) }));
  let message: string;
  const first = conflicts[0] as { owner: string; field: string };
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${first.owner}: ${first.field}`;
  } else {
    const groups: string[] = [];
    for (const owner of [...new Set(conflicts.map((c) => c.owner))]) {
      const fields = conflicts.filter((c) => c.owner === owner).map((c) => `- ${c.field}`);
      groups.push(`conflicts with ${owner}:\n${fields.join('\n')}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${groups.join('\n')}`;
  }
  return new ApiError(
    statusBody(409, 'Conflict', message, {
      causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.owner}`, field: c.field })),
    }),
  );
}
