import { isJsonObject } from './mergePatch.js';
import type { KubeObject, ManagedFieldsEntry } from './types.js';

// Metadata the server owns: never part of a manager's field set.
const SYSTEM_METADATA = new Set([
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

function fieldSet(value: Record<string, unknown>, withDot: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = withDot ? { '.': {} } : {};
  for (const [k, v] of Object.entries(value)) {
    out[`f:${k}`] = isJsonObject(v) ? fieldSet(v, true) : {};
  }
  return out;
}

function fieldsOf(obj: KubeObject, subresource: string | undefined): Record<string, unknown> {
  if (subresource === 'status') {
    return isJsonObject(obj['status']) ? { 'f:status': fieldSet(obj['status'], false) } : {};
  }
  const out: Record<string, unknown> = {};
  const meta: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj.metadata)) {
    if (!SYSTEM_METADATA.has(k) && v !== undefined) meta[k] = v;
  }
  if (Object.keys(meta).length > 0) out['f:metadata'] = fieldSet(meta, false);
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata') continue;
    out[`f:${k}`] = isJsonObject(v) ? fieldSet(v, k !== 'spec' && k !== 'status') : {};
  }
  return out;
}

/**
 * Returns `managedFields` after `manager` wrote `obj` (an Update operation,
 * optionally through a subresource): that manager's entry is replaced, the
 * others are kept.
 *
 * Easy to get wrong: this is a small emulation (no field ownership
 * transfer between managers, no server-side apply); it exists so consumers
 * that strip `managedFields` have something realistic to strip.
 */
export function recordManagedFields(
  previous: readonly ManagedFieldsEntry[] | undefined,
  obj: KubeObject,
  manager: string,
  subresource: string | undefined,
  time: string,
): ManagedFieldsEntry[] {
  const entry: ManagedFieldsEntry = {
    manager,
    operation: 'Update',
    apiVersion: obj.apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsOf(obj, subresource),
  };
  if (subresource !== undefined) entry.subresource = subresource;
  const others = (previous ?? []).filter(
    (e) => !(e.manager === manager && e.operation === 'Update' && e.subresource === subresource),
  );
  return [...others, entry];
}
