import type { OwnerReference } from '@protean/core';
import { AlreadyOwnedError } from './AlreadyOwnedError.js';
import { InvalidOwnerError } from './InvalidOwnerError.js';
import type { KubeObject } from './KubeObject.js';

/** Options of {@link setControllerReference} and {@link setOwnerReference}. */
export interface OwnerReferenceOptions {
  /**
   * `blockOwnerDeletion`: with foreground deletion, the owner waits for
   * this object to be deleted first. Default true for a controller
   * reference, false for a plain owner reference.
   */
  readonly blockOwnerDeletion?: boolean;
}

/** Options of {@link setControllerReference}. */
export interface ControllerReferenceOptions extends OwnerReferenceOptions {
  /**
   * The object as stored on the API server, when `object` is a
   * configuration built from scratch (as for server-side apply): its
   * controller counts too, so a child another controller owns is refused
   * although `object` carries no owner references. `applyOwned` reads and
   * passes it.
   */
  readonly live?: KubeObject | undefined;
}

/**
 * Makes `owner` the controller of `object` (controller-runtime's
 * `controllerutil.SetControllerReference`): adds, or updates in place, an
 * owner reference with `controller: true`, so the garbage collector deletes
 * `object` when `owner` goes, and `controllerOf(object)` names the owner.
 * Mutates and returns `object`.
 *
 * Throws {@link AlreadyOwnedError} when another owner is the controller
 * already, of `object` or of `options.live`, and {@link InvalidOwnerError}
 * when `owner` lacks its identity or lives in another namespace than `object`.
 *
 * Easy to get wrong: `owner` must be the object as read from the server
 * (its `uid` is what the reference points at), and `object.metadata.namespace`
 * must be set for a namespaced child before calling this. When `object` is
 * not the stored object, pass the stored one as `live`: a server-side apply
 * merges owner references by uid, so the server would answer a second
 * controller with a 422, `force` or not.
 */
export function setControllerReference<T extends KubeObject>(owner: KubeObject, object: T, options: ControllerReferenceOptions = {}): T {
  const ref = referenceTo(owner, object, true, options.blockOwnerDeletion ?? true);
  for (const holder of options.live === undefined ? [object] : [object, options.live]) {
    const current = controllerOf(holder);
    if (current !== undefined && !sameOwner(current, ref)) throw new AlreadyOwnedError(describeObject(object), current, ref);
  }
  return upsert(object, ref);
}

/**
 * Adds `owner` as a non-controlling owner of `object` (controller-runtime's
 * `controllerutil.SetOwnerReference`), or updates its reference in place;
 * an existing `controller` flag on that reference is kept. Mutates and
 * returns `object`. Throws {@link InvalidOwnerError} like
 * {@link setControllerReference}.
 */
export function setOwnerReference<T extends KubeObject>(owner: KubeObject, object: T, options: OwnerReferenceOptions = {}): T {
  const ref = referenceTo(owner, object, false, options.blockOwnerDeletion ?? false);
  const existing = (object.metadata?.ownerReferences ?? []).find((r) => sameOwner(r, ref));
  return upsert(object, existing?.controller === true ? { ...ref, controller: true } : ref);
}

/** The controller reference of `object` (`controller: true`), if any (controller-runtime's `metav1.GetControllerOf`). */
export function controllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** True when `owner` is the controller of `object` (same uid). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata?.uid;
  return uid !== undefined && controllerOf(object)?.uid === uid;
}

function referenceTo(owner: KubeObject, object: KubeObject, controller: boolean, blockOwnerDeletion: boolean): OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  const missing = [
    ['apiVersion', apiVersion],
    ['kind', kind],
    ['metadata.name', name],
    ['metadata.uid', uid],
  ]
    .filter(([, v]) => typeof v !== 'string' || v === '')
    .map(([k]) => k);
  if (missing.length > 0) {
    throw new InvalidOwnerError(`owner ${describeObject(owner)} lacks ${missing.join(', ')}; pass the owner as read from the API server`);
  }
  const ownerNs = owner.metadata?.namespace ?? '';
  const objectNs = object.metadata?.namespace ?? '';
  if (ownerNs !== '' && ownerNs !== objectNs) {
    throw new InvalidOwnerError(
      objectNs === ''
        ? `cluster-scoped ${describeObject(object)} cannot be owned by namespaced ${kind} ${ownerNs}/${name}`
        : `cross-namespace owner references are not allowed: ${describeObject(object)} cannot be owned by ${kind} ${ownerNs}/${name}`,
    );
  }
  const ref: OwnerReference = { apiVersion: apiVersion as string, kind: kind as string, name: name as string, uid: uid as string };
  if (controller) ref.controller = true;
  if (blockOwnerDeletion) ref.blockOwnerDeletion = true;
  return ref;
}

/** Same owner: same group (apiVersion without version), kind and name, as controller-runtime compares. */
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function upsert<T extends KubeObject>(object: T, ref: OwnerReference): T {
  const metadata = (object.metadata ??= {});
  const refs = [...(metadata.ownerReferences ?? [])];
  const at = refs.findIndex((r) => sameOwner(r, ref));
  if (at < 0) refs.push(ref);
  else refs[at] = ref;
  metadata.ownerReferences = refs;
  return object;
}

function describeObject(object: KubeObject): string {
  const ns = object.metadata?.namespace;
  const name = object.metadata?.name ?? '(unnamed)';
  return `${object.kind ?? 'object'} ${ns === undefined || ns === '' ? name : `${ns}/${name}`}`;
}
