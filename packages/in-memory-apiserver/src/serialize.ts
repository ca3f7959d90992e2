import type { KubeObject } from './types.js';

/** apiVersion of `PartialObjectMetadata` and `PartialObjectMetadataList`. */
export const META_API_VERSION = 'meta.k8s.io/v1';

const fullJson = new WeakMap<KubeObject, string>();
const partialJson = new WeakMap<KubeObject, string>();
const untypedJson = new WeakMap<KubeObject, string>();

/** `obj` reduced to a `meta.k8s.io/v1` `PartialObjectMetadata` (metadata shared, not copied). */
export function toPartial(obj: KubeObject): { kind: string; apiVersion: string; metadata: KubeObject['metadata'] } {
  return { kind: 'PartialObjectMetadata', apiVersion: META_API_VERSION, metadata: obj.metadata };
}

/**
 * The JSON text of a stored object, full or as PartialObjectMetadata.
 * Cached per object: stored objects are immutable, and a paginated list or
 * many watchers serialise the same object many times.
 */
export function objectJson(obj: KubeObject, partial: boolean): string {
  const cache = partial ? partialJson : fullJson;
  let text = cache.get(obj);
  if (text === undefined) {
    text = JSON.stringify(partial ? toPartial(obj) : obj);
    cache.set(obj, text);
  }
  return text;
}

/**
 * The JSON text of a LIST item: as {@link objectJson}, except that items of
 * a built-in (typed) list carry no `kind`/`apiVersion`, as the real server
 * serialises them (custom resource and metadata-only items keep theirs).
 */
export function listItemJson(obj: KubeObject, partial: boolean, builtin: boolean): string {
  if (partial || !builtin) return objectJson(obj, partial);
  let text = untypedJson.get(obj);
  if (text === undefined) {
    const { kind: _kind, apiVersion: _apiVersion, ...rest } = obj;
    text = JSON.stringify(rest);
    untypedJson.set(obj, text);
  }
  return text;
}
