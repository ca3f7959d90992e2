import type { GroupVersionResource, KindUnavailableError } from '@protean/core';
import { CollectionIndex } from './CollectionIndex.js';
import { ScalarIndex } from './ScalarIndex.js';
import type { WatchEntry } from './WatchEntry.js';

/**
 * Where the coordinator stands with the watch manager for one GVR:
 * `idle` (not an owner), `ensuring` (an `ensureWatch` is in flight; every
 * `watch()` of the GVR waits on it), `owned` (synced; the coordinator is
 * an owner until its last request goes) or `waiting` (the kind is not
 * served or not allowed: the requests stay, not owned, until the watch
 * manager says the kind may be available; every `watch()` of the GVR is
 * refused at once meanwhile).
 */
export type OwnershipPhase = 'idle' | 'ensuring' | 'owned' | 'waiting';

/**
 * Every indexed request of one GVR (scalar and collection indexes) plus the
 * coordinator's ownership of that GVR's informer. Routing reads the two
 * indexes directly (`IndexedWatchCoordinator.routeEvent`). Internal to the
 * package.
 */
export class GvrWatches {
  readonly gvr: GroupVersionResource;
  readonly key: string;
  readonly scalar = new ScalarIndex();
  readonly collection = new CollectionIndex();
  /** All indexed entries; its size is the request count ownership follows. */
  readonly entries = new Set<WatchEntry>();
  phase: OwnershipPhase = 'idle';
  /** The shared sync every `watch()` of this GVR awaits while `ensuring`. */
  inflight: Promise<void> | undefined;
  /** Set while the kind is unavailable (from the first refusal until a sync): why. */
  refusal: KindUnavailableError | undefined;
  /** While `waiting`: aborts the wait for the kind (the last request went). */
  parked: AbortController | undefined;

  constructor(gvr: GroupVersionResource, key: string) {
    this.gvr = gvr;
    this.key = key;
  }

  add(entry: WatchEntry): boolean {
    if (this.entries.has(entry)) return false;
    this.entries.add(entry);
    if (entry.selector === undefined) this.scalar.add(entry);
    else this.collection.add(entry);
    return true;
  }

  remove(entry: WatchEntry): boolean {
    if (!this.entries.delete(entry)) return false;
    if (entry.selector === undefined) this.scalar.remove(entry);
    else this.collection.remove(entry);
    return true;
  }
}
