import type { GroupVersionResource } from '@protean/core';

/**
 * A request for one object of a namespaced resource that names no
 * namespace, refused before it is sent: without one the URL is the
 * cluster-wide path, which the API server answers with a 404 that never
 * mentions the namespace. The message names the resource, the object and
 * where the namespace goes.
 *
 * Easy to get wrong: `create`, `update` and `apply` take the namespace from
 * the object's `metadata.namespace`; `get`, `patch` and `delete` from the key.
 */
export class MissingNamespaceError extends TypeError {
  override readonly name = 'MissingNamespaceError';
  readonly gvr: GroupVersionResource;
  /** The object's name (`""` when it has none yet, e.g. a create with `generateName`). */
  readonly objectName: string;

  constructor(operation: string, gvr: GroupVersionResource, objectName: string, fromBody: boolean) {
    const resource = gvr.group === '' ? gvr.resource : `${gvr.resource}.${gvr.group}`;
    const what = objectName === '' ? resource : `${resource} "${objectName}"`;
    super(
      `${operation} of ${what} names no namespace, but ${resource} is a namespaced resource: ` +
        (fromBody ? 'set metadata.namespace on the object' : 'pass namespace in the key ({ namespace, name })'),
    );
    this.gvr = gvr;
    this.objectName = objectName;
  }
}
