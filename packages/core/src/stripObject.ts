import type { CachedObject, ObjectCacheOptions } from './informer.js';

/** The annotation kubectl writes with a full copy of the applied object; never worth caching. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The default trim of an informer that keeps full objects: drops
 * `metadata.managedFields` (often half of an object) and the
 * `kubectl.kubernetes.io/last-applied-configuration` annotation (a second
 * copy of it), in place, and returns `obj`. controller-runtime's cache
 * users add the same transform by hand.
 *
 * Easy to get wrong: it changes `obj`; call it only on a freshly parsed
 * object nobody else holds.
 */
export function stripObject(obj: CachedObject): CachedObject {
  const meta = obj.metadata as CachedObject['metadata'] & { managedFields?: unknown };
  if (meta.managedFields !== undefined) delete meta.managedFields;
  const annotations = meta.annotations;
  if (annotations !== undefined && LAST_APPLIED in annotations) delete annotations[LAST_APPLIED];
  return obj;
}

/**
 * What a list/watch keeping full objects applies to each one:
 * {@link stripObject}, then `options.transform` when given. Resolved once
 * per list/watch.
 */
export function objectTransformOf(options: ObjectCacheOptions): (obj: CachedObject) => CachedObject {
  const user = options.transform;
  return user === undefined ? stripObject : (obj) => user(stripObject(obj));
}
