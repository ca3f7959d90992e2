/**
 * An owner that cannot own the object: it lacks `apiVersion`, `kind`,
 * `metadata.name` or `metadata.uid` (an object not read from the server),
 * or it is namespaced while the object is cluster-scoped or in another
 * namespace, which the garbage collector does not allow.
 */
export class InvalidOwnerError extends TypeError {
  override readonly name = 'InvalidOwnerError';
}
