import { deepEqual } from './deepEqual.js';
import { fieldValues, fromFieldsV1, isAtOrBelow, toFieldsV1 } from './fieldSet.js';
import type { KubeObject, ManagedFieldsEntry } from './types.js';

/**
 * Returns `managedFields` after `manager` wrote `next` over `old` (an
 * Update operation, optionally through a subresource; `old` undefined for
 * a create), the way the real server attributes an Update: the manager
 * gains the fields the write added or changed (and the `.` of maps it
 * created), every other entry loses them, fields the write removed leave
 * every entry, and an entry left with nothing is dropped.
 *
 * Easy to get wrong: lists are atomic here (the real server merges some by
 * key, e.g. `finalizers` as a set); see the package README.
 */
export function recordManagedFields(
  previous: readonly ManagedFieldsEntry[] | undefined,
  old: KubeObject | undefined,
  next: KubeObject,
  manager: string,
  subresource: string | undefined,
  time: string,
  builtin: boolean,
): ManagedFieldsEntry[] {
  const reading = { scope: subresource === 'status' ? 'status' : 'all', maps: 'update', builtin } as const;
  const before = old === undefined ? new Map<string, unknown>() : fieldValues(old, reading);
  const after = fieldValues(next, reading);
  const touched = new Set<string>();
  for (const [path, value] of after) if (!before.has(path) || !deepEqual(before.get(path), value)) touched.add(path);
  const removed = [...before.keys()].filter((path) => !after.has(path));
  for (const path of removed) touched.add(path);
  const isMine = (e: ManagedFieldsEntry): boolean => e.manager === manager && e.operation === 'Update' && e.subresource === subresource;
  const out: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  for (const entry of previous ?? []) {
    if (isMine(entry)) {
      const paths = fromFieldsV1(entry.fieldsV1);
      for (const path of touched) {
        if (after.has(path)) paths.add(path);
        else paths.delete(path);
      }
      mine = { ...entry, apiVersion: next.apiVersion, time, fieldsV1: toFieldsV1(paths) };
      if (paths.size > 0) out.push(mine);
      continue;
    }
    const kept = withoutPaths(entry, touched);
    if (kept !== undefined) out.push(kept);
  }
  if (mine === undefined) {
    const paths = [...touched].filter((path) => after.has(path));
    if (paths.length > 0) {
      const entry: ManagedFieldsEntry = {
        manager,
        operation: 'Update',
        apiVersion: next.apiVersion,
        time,
        fieldsType: 'FieldsV1',
        fieldsV1: toFieldsV1(paths),
      };
      if (subresource !== undefined) entry.subresource = subresource;
      out.push(entry);
    }
  }
  return sortManagedFields(out);
}

/**
 * `entries` in kube-apiserver's order: Apply before Update, then older
 * first, then by manager, apiVersion and subresource.
 */
export function sortManagedFields(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const key = (e: ManagedFieldsEntry): string[] => [e.operation, e.time, e.manager, e.apiVersion, e.subresource ?? ''];
  return entries.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return (ka[i] as string) < (kb[i] as string) ? -1 : 1;
    return 0;
  });
}

/** `entry` without `paths` (and what lies below them), or undefined when nothing is left. */
export function withoutPaths(entry: ManagedFieldsEntry, paths: ReadonlySet<string>): ManagedFieldsEntry | undefined {
  const own = fromFieldsV1(entry.fieldsV1);
  let dropped = false;
  for (const path of [...own]) {
    for (const gone of paths) {
      if (isAtOrBelow(path, gone)) {
        own.delete(path);
        dropped = true;
        break;
      }
    }
  }
  if (!dropped) return entry;
  return own.size === 0 ? undefined : { ...entry, fieldsV1: toFieldsV1(own) };
}
