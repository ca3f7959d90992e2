import { gvrKey, type GroupVersionResource, type Logger, type WatchManager } from '@protean/core';
import { GvrTable } from './GvrTable.js';
import { GvrWatches } from './GvrWatches.js';
import type { WatchEntry } from './WatchEntry.js';

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * The per-GVR request tables (the routing path's `get` is the table's own)
 * and the coordinator's ownership of each GVR's informer in the watch
 * manager. One `ensureWatch` per GVR is in flight at most, and every
 * `watch()` of that GVR shares it; a GVR is released only when it has no
 * request left and no sync in flight, so the watch manager never sees a
 * release racing an ensure of the same owner.
 * Internal to the package.
 */
export class GvrOwnership extends GvrTable<GvrWatches> {
  /** GVRs whose ownership ended during the current operation; see {@link flush}. */
  private readonly releases: GroupVersionResource[] = [];

  constructor(
    private readonly watchManager: WatchManager,
    private readonly ownerId: string,
    private readonly log: Logger,
    /** Takes a request whose sync failed out of its instance and the indexes. */
    private readonly dropEntry: (entry: WatchEntry) => void,
  ) {
    super();
  }

  /** The table of the entry's GVR, created (not yet owned) if needed. */
  open(entry: WatchEntry): GvrWatches {
    let gvrWatches = this.get(entry.gvr);
    if (gvrWatches === undefined) {
      gvrWatches = new GvrWatches(entry.gvr, entry.gvrKey);
      this.set(entry.gvr, gvrWatches);
    }
    return gvrWatches;
  }

  /** The last request of `gvrWatches` went: end ownership now, or when its sync settles. */
  retire(gvrWatches: GvrWatches): void {
    switch (gvrWatches.phase) {
      case 'owned':
        gvrWatches.phase = 'idle';
        this.delete(gvrWatches.gvr);
        // Deferred to the end of the caller's operation (flush), which may
        // still be walking instance state.
        this.releases.push(gvrWatches.gvr);
        break;
      case 'idle':
        this.delete(gvrWatches.gvr);
        break;
      case 'ensuring':
        // The watch manager is still adding us as an owner; settle() decides.
        break;
    }
  }

  /** Resolves once the coordinator owns a synced informer for `gvrWatches`'s GVR. */
  acquire(gvrWatches: GvrWatches): Promise<void> {
    if (gvrWatches.phase === 'owned') return RESOLVED;
    if (gvrWatches.phase === 'ensuring') return gvrWatches.inflight!;
    gvrWatches.phase = 'ensuring';
    let sync: Promise<void>;
    try {
      sync = Promise.resolve(this.watchManager.ensureWatch(gvrWatches.gvr, this.ownerId));
    } catch (err) {
      sync = Promise.reject(err as Error);
    }
    const inflight = sync.then(
      () => this.synced(gvrWatches),
      (err: unknown) => this.failed(gvrWatches, err),
    );
    gvrWatches.inflight = inflight;
    return inflight;
  }

  /** Releases the GVRs retired since the last flush. */
  flush(): void {
    if (this.releases.length === 0) return;
    for (const gvr of this.releases.splice(0)) this.release(gvr);
  }

  private synced(gvrWatches: GvrWatches): void {
    gvrWatches.inflight = undefined;
    if (gvrWatches.entries.size !== 0) {
      gvrWatches.phase = 'owned';
      return;
    }
    // Every request left while the informer was syncing.
    gvrWatches.phase = 'idle';
    if (this.get(gvrWatches.gvr) === gvrWatches) this.delete(gvrWatches.gvr);
    this.release(gvrWatches.gvr);
  }

  /**
   * The watch manager dropped our ownership. Every request of the GVR was added
   * after the previous ownership ended, so all of them wait on this sync and
   * fail with it; none may stay in the indexes of a GVR nobody watches.
   */
  private failed(gvrWatches: GvrWatches, err: unknown): never {
    gvrWatches.inflight = undefined;
    gvrWatches.phase = 'idle';
    this.log.warn({ err, gvr: gvrWatches.key, requests: gvrWatches.entries.size }, 'cannot watch child resource; dropping its requests');
    for (const entry of [...gvrWatches.entries]) this.dropEntry(entry);
    if (gvrWatches.entries.size === 0 && this.get(gvrWatches.gvr) === gvrWatches) this.delete(gvrWatches.gvr);
    this.flush();
    throw err;
  }

  private release(gvr: GroupVersionResource): void {
    try {
      this.watchManager.releaseWatch(gvr, this.ownerId);
      if (this.log.isLevelEnabled('debug')) this.log.debug({ gvr: gvrKey(gvr) }, 'released child watch');
    } catch (err) {
      this.log.error({ err, gvr: gvrKey(gvr) }, 'releaseWatch failed');
    }
  }
}
