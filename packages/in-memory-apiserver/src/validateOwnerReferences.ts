import type { ServedResource } from './ServedResource.js';
import { invalid, type FieldCause } from './statusErrors.js';
import type { KubeObject } from './types.js';

/**
 * The real server's rule that at most one owner reference is the
 * controller (`controller: true`): every further one is a 422 Invalid on
 * `metadata.ownerReferences` naming the first controller and the extra one
 * as `Kind/name`, the refused list shown as JSON. Applies to every write
 * (create, update, patch, apply): a second controller is refused, never
 * swapped in. An update lists each cause `repeat` times, as kube-apiserver
 * v1.36 does (its update path validates the new metadata four times; the
 * message names the problem once).
 *
 * Easy to get wrong: the check is on the object as it would be stored, so
 * a server-side apply that adds a controller to a list another manager
 * wrote (ownerReferences merge by uid) is refused too.
 */
export function validateOwnerReferences(def: ServedResource, obj: KubeObject, repeat = 1): void {
  const refs = obj.metadata.ownerReferences;
  if (!Array.isArray(refs)) return;
  const causes: FieldCause[] = [];
  let first: string | undefined;
  for (const ref of refs) {
    if (ref?.controller !== true) continue;
    const current = `${String(ref.kind)}/${String(ref.name)}`;
    if (first === undefined) {
      first = current;
      continue;
    }
    causes.push({
      field: 'metadata.ownerReferences',
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${formatValue(refs)}: Only one reference can have Controller set to true. Found "true" in references for ${first} and ${current}`,
    });
  }
  if (causes.length > 0) throw invalid(def.group, def.kind, obj.metadata.name, Array.from({ length: repeat }, () => causes).flat());
}

const FIELD_ORDER = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'] as const;

/** The refused list as the real server prints it: JSON with each reference's fields in `metav1.OwnerReference` order. */
function formatValue(refs: readonly unknown[]): string {
  const ordered = refs.map((ref) => {
    if (ref === null || typeof ref !== 'object') return ref;
    const r = ref as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of FIELD_ORDER) if (r[k] !== undefined) out[k] = r[k];
    return out;
  });
  return JSON.stringify(ordered);
}
