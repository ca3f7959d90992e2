import type { ObjectMeta, OwnerReference, PartialObjectMetadata } from '@protean/core';

/** The annotation kubectl writes with a full copy of the applied object; never worth caching. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

const API_VERSION = 'meta.k8s.io/v1';
const KIND = 'PartialObjectMetadata';

type Raw = Record<string, unknown>;

/**
 * Reduces an object from the API server (metadata-only or full) to the
 * small `PartialObjectMetadata` the informer caches: name, namespace, uid,
 * resourceVersion, generation, creationTimestamp, deletionTimestamp,
 * labels, annotations (without {@link LAST_APPLIED_ANNOTATION}),
 * ownerReferences and finalizers. Everything else (managedFields, spec,
 * data, status) is dropped. `apiVersion`/`kind` are always
 * `meta.k8s.io/v1`/`PartialObjectMetadata`, whatever the server sent: that
 * is what the cached object is.
 *
 * `intern` de-duplicates what many objects share (namespaces, creation
 * timestamps and, with its `labels`, label sets, frozen: see StringInterner). Easy to
 * get wrong: the label, annotation and ownerReference containers of `raw`
 * are reused, not copied, so `raw` must be a freshly parsed object nobody
 * else holds. Returns `undefined` when `raw` has no `metadata.name`.
 */
export function trimMetadata(
  raw: unknown,
  intern: ((s: string) => string) & { readonly labels?: (labels: Record<string, string>) => Record<string, string> } = (s) => s,
): PartialObjectMetadata | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const m = (raw as Raw)['metadata'];
  if (m === null || typeof m !== 'object') return undefined;
  const src = m as Raw;
  const name = src['name'];
  if (typeof name !== 'string' || name === '') return undefined;
  const meta: ObjectMeta = { name };
  const namespace = src['namespace'];
  if (typeof namespace === 'string' && namespace !== '') meta.namespace = intern(namespace);
  copyString(src, meta, 'uid');
  copyString(src, meta, 'resourceVersion');
  const generation = src['generation'];
  if (typeof generation === 'number') meta.generation = generation;
  const created = src['creationTimestamp'];
  if (typeof created === 'string') meta.creationTimestamp = intern(created);
  copyString(src, meta, 'deletionTimestamp');
  const labels = stringMap(src['labels']);
  if (labels !== undefined) meta.labels = intern.labels === undefined ? labels : intern.labels(labels);
  const annotations = stringMap(src['annotations']);
  if (annotations !== undefined) {
    if (LAST_APPLIED_ANNOTATION in annotations) delete annotations[LAST_APPLIED_ANNOTATION];
    meta.annotations = annotations;
  }
  const owners = src['ownerReferences'];
  if (Array.isArray(owners) && owners.length > 0) meta.ownerReferences = owners as OwnerReference[];
  const finalizers = src['finalizers'];
  if (Array.isArray(finalizers) && finalizers.length > 0) meta.finalizers = finalizers as string[];
  return { apiVersion: API_VERSION, kind: KIND, metadata: meta };
}

function copyString(src: Raw, dst: ObjectMeta, field: 'uid' | 'resourceVersion' | 'deletionTimestamp'): void {
  const v = src[field];
  if (typeof v === 'string') dst[field] = v;
}

function stringMap(v: unknown): Record<string, string> | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  return v as Record<string, string>;
}
