import {
  gvrKey,
  namespacedNameKey,
  type GroupVersionResource,
  type InformerCache,
  type InformerHealth,
  type NamespacedName,
  type PartialObjectMetadata,
} from '../index.js';
import { FakeInformerError } from './FakeInformerError.js';
import { objectName } from './fakeObject.js';

/**
 * An {@link InformerCache} a test fills by hand, for code that only reads
 * an informer (a `FakeWatchManager`'s informers, health rules): `add`,
 * `update` and `delete` change what it holds, `markSynced()` turns it
 * synced, `setHealth` sets what `health()` reports. It delivers no events;
 * to run the real informer engine on test data, use a
 * `FakeInformerSource` with `InformerWatchManager`.
 */
export class FakeInformer implements InformerCache {
  readonly gvr: GroupVersionResource;
  private readonly store = new Map<string, PartialObjectMetadata>();
  private synced: boolean;
  private reported: Partial<InformerHealth> = {};

  constructor(gvr: GroupVersionResource, options: { readonly synced?: boolean } = {}) {
    this.gvr = gvr;
    this.synced = options.synced ?? true;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  markSynced(): void {
    this.synced = true;
  }

  list(): PartialObjectMetadata[] {
    return [...this.store.values()];
  }

  get(key: NamespacedName): PartialObjectMetadata | undefined {
    return this.store.get(namespacedNameKey(key));
  }

  /** What `health()` reports from now on, over `{ synced, idleMs: undefined, relists: 0, failing: undefined }`. */
  setHealth(health: Partial<InformerHealth>): void {
    this.reported = health;
  }

  health(): InformerHealth {
    return { synced: this.synced, idleMs: undefined, relists: 0, failing: undefined, ...this.reported };
  }

  /** Caches `obj` (replacing an object of the same name). */
  add(obj: PartialObjectMetadata): void {
    this.store.set(namespacedNameKey(objectName(obj)), obj);
  }

  /**
   * Replaces the cached object of `obj`'s name.
   * @throws FakeInformerError when none is cached.
   */
  update(obj: PartialObjectMetadata): void {
    const key = namespacedNameKey(objectName(obj));
    if (!this.store.has(key)) throw new FakeInformerError(`cannot update ${key} in the informer of ${gvrKey(this.gvr)}: not in its cache`);
    this.store.set(key, obj);
  }

  /**
   * Removes the cached object.
   * @throws FakeInformerError when none is cached.
   */
  delete(target: NamespacedName | PartialObjectMetadata): void {
    const key = namespacedNameKey('metadata' in target ? objectName(target) : target);
    if (!this.store.delete(key))
      throw new FakeInformerError(`cannot delete ${key} from the informer of ${gvrKey(this.gvr)}: not in its cache`);
  }
}
