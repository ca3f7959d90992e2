import type { NamespacedName, ObjectMeta, PartialObjectMetadata } from '../index.js';

/**
 * What a test says about an object: its metadata fields (only `name` is
 * required; `namespace` defaults to `""`, i.e. cluster-scoped) and, rarely,
 * its `apiVersion`/`kind`.
 */
export type ObjectSpec = Partial<ObjectMeta> & {
  readonly name: string;
  readonly apiVersion?: string;
  readonly kind?: string;
  /**
   * The object's other top-level fields (`spec`, `data`, `status`): only
   * list/watches asked for full objects deliver them.
   */
  readonly content?: Readonly<Record<string, unknown>>;
};

/**
 * Builds the metadata-only object an informer caches, as the API server
 * sends it to a metadata watch (`meta.k8s.io/v1` `PartialObjectMetadata`).
 * Easy to get wrong: without `generation` the object has none, and the
 * controller then reconciles every parent update; set `generation` to test
 * the skip of metadata-only changes.
 */
export function fakeObject(spec: ObjectSpec): PartialObjectMetadata {
  const { apiVersion, kind, content, ...meta } = spec;
  return {
    ...content,
    apiVersion: apiVersion ?? 'meta.k8s.io/v1',
    kind: kind ?? 'PartialObjectMetadata',
    metadata: { ...meta, namespace: meta.namespace ?? '' },
  };
}

/** The identity of an object, with `""` for a cluster-scoped one. */
export function objectName(obj: PartialObjectMetadata): NamespacedName {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
}
