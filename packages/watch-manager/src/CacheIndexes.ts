import type { CachedObject, IndexFunc, PartialObjectMetadata } from '@protean/core';
import type { MetadataStore } from './MetadataStore.js';
import { byOwner, NAMESPACE_INDEX, ObjectIndexes, OWNER_INDEX } from './ObjectIndexes.js';

/**
 * The secondary indexes of an {@link Informer}'s cache, as the informer
 * answers for them: none until one is asked for; `owner` built in (built
 * on first use); `namespace` answered by the cache's own layout. They
 * follow the cache when a list replaces it.
 *
 * Easy to get wrong: only the live cache keeps them true; a list built
 * aside is indexed when it becomes the cache ({@link follow}).
 */
export class CacheIndexes {
  private indexes: ObjectIndexes | undefined;

  /** `cache`: the informer's live cache, read at each call (a list replaces it). */
  constructor(private readonly cache: () => MetadataStore) {}

  /** Indexes the cache by `fn` under `name` (built at once); false, changing nothing, when `name` has another function. */
  define(name: string, fn: IndexFunc): boolean {
    this.indexes ??= new ObjectIndexes();
    const current = this.funcOf(name);
    if (current !== undefined) return current === fn;
    const cache = this.cache();
    this.indexes.define(name, fn, cache.values());
    if (!cache.isAttached()) cache.attach(this.indexes, true);
    return true;
  }

  /** The function `name` is indexed by, if it is (the built-in `owner` only once built). */
  funcOf(name: string): IndexFunc | undefined {
    return this.indexes?.has(name) === true ? this.indexes.funcOf(name) : undefined;
  }

  /** The cached objects `index` files under `value`; undefined when not indexed. */
  byIndex(index: string, value: string): PartialObjectMetadata[] | undefined {
    // The cache is kept by namespace: that index is the cache itself.
    if (index === NAMESPACE_INDEX) return this.cache().listNamespace(value);
    if (this.indexes?.has(index) !== true) {
      if (index !== OWNER_INDEX) return undefined;
      this.define(OWNER_INDEX, byOwner);
    }
    return this.indexes!.get(index, value);
  }

  /** The values `index` files `obj` under; undefined when not indexed (and not `owner`). */
  values(index: string, obj: CachedObject): readonly string[] | undefined {
    if (index === NAMESPACE_INDEX) return [obj.metadata.namespace ?? ''];
    return (this.indexes?.funcOf(index) ?? (index === OWNER_INDEX ? byOwner : undefined))?.(obj);
  }

  /** A list replaced the cache `prev` with `next`: the indexes leave the one and are built again over the other. */
  follow(prev: MetadataStore, next: MetadataStore): void {
    prev.attach(undefined);
    next.attach(this.indexes);
  }
}
