import { namespacedNameKey, type PartialObjectMetadata } from '@protean/core';
import type { ObjectIndexes } from './ObjectIndexes.js';

/**
 * The informer's cache: objects by namespace, then name. Two levels
 * instead of one `namespace/name` key so no key string is built and kept
 * per object (the name string is the object's own).
 */
export class MetadataStore {
  private readonly byNamespace = new Map<string, Map<string, PartialObjectMetadata>>();
  private count = 0;
  /** The informer's secondary indexes, kept true on every set and delete once attached (the live cache only). */
  private indexes: ObjectIndexes | undefined;

  /** True while it keeps indexes true. */
  isAttached(): boolean {
    return this.indexes !== undefined;
  }

  /** Keeps `indexes` true from now on, building them from what it holds (unless `built`: they index it already). */
  attach(indexes: ObjectIndexes | undefined, built = false): void {
    this.indexes = indexes;
    if (!built) indexes?.rebuild(this.values());
  }

  get size(): number {
    return this.count;
  }

  get(namespace: string, name: string): PartialObjectMetadata | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  /** Stores `obj` under its namespace and name; returns the object it replaced. */
  set(obj: PartialObjectMetadata): PartialObjectMetadata | undefined {
    const ns = obj.metadata.namespace ?? '';
    let names = this.byNamespace.get(ns);
    if (names === undefined) {
      names = new Map();
      this.byNamespace.set(ns, names);
    }
    const old = names.get(obj.metadata.name);
    names.set(obj.metadata.name, obj);
    if (old === undefined) this.count++;
    this.indexes?.replace(old, obj);
    return old;
  }

  /** Removes and returns the object at `namespace`/`name`, if any. */
  delete(namespace: string, name: string): PartialObjectMetadata | undefined {
    const names = this.byNamespace.get(namespace);
    const old = names?.get(name);
    if (names === undefined || old === undefined) return undefined;
    names.delete(name);
    if (names.size === 0) this.byNamespace.delete(namespace);
    this.count--;
    this.indexes?.remove(old);
    return old;
  }

  *values(): IterableIterator<PartialObjectMetadata> {
    for (const names of this.byNamespace.values()) yield* names.values();
  }

  list(): PartialObjectMetadata[] {
    return [...this.values()];
  }

  /** The objects of one namespace (`""`: cluster-scoped ones). */
  listNamespace(namespace: string): PartialObjectMetadata[] {
    const names = this.byNamespace.get(namespace);
    return names === undefined ? [] : [...names.values()];
  }

  /** client-go's cache key of an object: `namespace/name`, or `name` when cluster-scoped. */
  static keyOf(obj: PartialObjectMetadata): string {
    return namespacedNameKey({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
  }
}
