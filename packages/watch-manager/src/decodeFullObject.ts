import { type CachedObject, type ObjectCacheOptions, type PartialObjectMetadata } from '@protean/core';
import { objectTransformOf } from '@protean/core/internal';

/**
 * The decoder of a list/watch of full objects: an object from the server
 * with a `metadata.name` is cached whole, less what core's `stripObject`
 * and `options.transform` drop, its namespace and creation timestamp
 * interned; anything else is
 * `undefined`. Easy to get wrong: the object must be freshly parsed (the
 * transform changes it in place).
 */
export function fullObjectDecoder(
  options: ObjectCacheOptions,
  intern: (s: string) => string,
): (raw: unknown) => PartialObjectMetadata | undefined {
  const transform = objectTransformOf(options);
  return (raw) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
    const meta = (raw as { metadata?: unknown }).metadata;
    if (meta === null || typeof meta !== 'object') return undefined;
    const m = meta as { name?: unknown; namespace?: unknown; creationTimestamp?: unknown };
    if (typeof m.name !== 'string' || m.name === '') return undefined;
    if (typeof m.namespace === 'string') m.namespace = m.namespace === '' ? undefined : intern(m.namespace);
    if (m.namespace === undefined) delete m.namespace;
    if (typeof m.creationTimestamp === 'string') m.creationTimestamp = intern(m.creationTimestamp);
    return transform(raw as CachedObject);
  };
}
