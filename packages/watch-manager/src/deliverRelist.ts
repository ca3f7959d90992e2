import { DeletedFinalStateUnknown, type PartialObjectMetadata } from '@protean/core';
import { MetadataStore } from './MetadataStore.js';

/** What {@link deliverRelist} tells of each change. */
export interface RelistListener {
  added(obj: PartialObjectMetadata): void;
  updated(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata): void;
  deleted(obj: DeletedFinalStateUnknown): void;
}

/**
 * Tells a listener how a relist changed the cache from `prev` to `next`: a
 * delete carrying a {@link DeletedFinalStateUnknown} (with the last known
 * object) for every object that vanished, an update for every object whose
 * resourceVersion changed, an add for every new one. Objects that did not
 * change produce no event, and `next` keeps the very object listeners
 * already hold (unless `keepListed`: after a switch of source, the listed
 * object, which may hold more than the cached one). Easy to get wrong: `next` must already be the informer's
 * cache, so listeners reading it during the callbacks see the new state.
 */
export function deliverRelist(prev: MetadataStore, next: MetadataStore, handlers: RelistListener, keepListed = false): void {
  for (const old of prev.values()) {
    if (next.get(old.metadata.namespace ?? '', old.metadata.name) === undefined) {
      handlers.deleted(new DeletedFinalStateUnknown(MetadataStore.keyOf(old), old));
    }
  }
  for (const obj of next.values()) {
    const old = prev.get(obj.metadata.namespace ?? '', obj.metadata.name);
    if (old === undefined) handlers.added(obj);
    else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) handlers.updated(old, obj);
    // Differs from client-go, which sends an update for every listed object.
    else if (!keepListed) next.set(old);
  }
}
