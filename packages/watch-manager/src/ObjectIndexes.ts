import type { IndexFunc, PartialObjectMetadata } from '@protean/core';

/** The index every cache of full objects can answer without being asked for it: owner reference uids. */
export const OWNER_INDEX = 'owner';
/** The other built-in index: the namespace (`""` for cluster-scoped objects), which the cache is kept by anyway. */
export const NAMESPACE_INDEX = 'namespace';

/** What the built-in `owner` index files an object under: the uid of each of its owner references. */
export const byOwner: IndexFunc = (obj) => obj.metadata.ownerReferences?.map((r) => r.uid) ?? [];

/**
 * The informer's secondary indexes: per index, value → the cached objects
 * filed under it (controller-runtime's `IndexField`, client-go's
 * `Indexers`). Kept true by the store on every set and delete, and built
 * again from the whole cache when a list replaces it.
 *
 * Easy to get wrong: objects are filed by identity; a new version of an
 * object is a new object (the cache never changes one in place), so an
 * update is the old one removed and the new one added.
 */
export class ObjectIndexes {
  private readonly funcs = new Map<string, IndexFunc>();
  private readonly byIndex = new Map<string, Map<string, Set<PartialObjectMetadata>>>();

  /** The function of `name`, if indexed. */
  funcOf(name: string): IndexFunc | undefined {
    return this.funcs.get(name) ?? (name === OWNER_INDEX ? byOwner : undefined);
  }

  /** True when `name` is indexed (the built-in owner index once it was first asked for). */
  has(name: string): boolean {
    return this.funcs.has(name);
  }

  /** Indexes `objects` by `fn` under `name` (a new index, built at once). */
  define(name: string, fn: IndexFunc, objects: Iterable<PartialObjectMetadata>): void {
    this.funcs.set(name, fn);
    const values = new Map<string, Set<PartialObjectMetadata>>();
    this.byIndex.set(name, values);
    for (const obj of objects) file(values, fn, obj);
  }

  /** Files `obj` (new or a new version of `old`) in every index. */
  replace(old: PartialObjectMetadata | undefined, obj: PartialObjectMetadata): void {
    for (const [name, fn] of this.funcs) {
      const values = this.byIndex.get(name)!;
      if (old !== undefined) unfile(values, fn, old);
      file(values, fn, obj);
    }
  }

  remove(obj: PartialObjectMetadata): void {
    for (const [name, fn] of this.funcs) unfile(this.byIndex.get(name)!, fn, obj);
  }

  /** Every index built again from `objects` (a list replaced the cache). */
  rebuild(objects: Iterable<PartialObjectMetadata>): void {
    const all = [...objects];
    for (const [name, fn] of this.funcs) this.define(name, fn, all);
  }

  /** The objects filed under `value` in `name`; undefined when `name` is not indexed. */
  get(name: string, value: string): PartialObjectMetadata[] | undefined {
    const values = this.byIndex.get(name);
    if (values === undefined) return undefined;
    const objects = values.get(value);
    return objects === undefined ? [] : [...objects];
  }
}

function file(values: Map<string, Set<PartialObjectMetadata>>, fn: IndexFunc, obj: PartialObjectMetadata): void {
  for (const value of fn(obj as Parameters<IndexFunc>[0])) {
    let objects = values.get(value);
    if (objects === undefined) values.set(value, (objects = new Set()));
    objects.add(obj);
  }
}

function unfile(values: Map<string, Set<PartialObjectMetadata>>, fn: IndexFunc, obj: PartialObjectMetadata): void {
  for (const value of fn(obj as Parameters<IndexFunc>[0])) {
    const objects = values.get(value);
    if (objects === undefined) continue;
    objects.delete(obj);
    if (objects.size === 0) values.delete(value);
  }
}
