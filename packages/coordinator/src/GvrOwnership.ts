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
    let g = this.get(entry.gvr);
    if (g === undefined) {
      g = new GvrWatches(entry.gvr, entry.gvrKey);
      this.set(entry.gvr, g);
    }
    return g;
  }

  /** The last request of `g` went: end ownership now, or when its sync settles. */
  retire(g: GvrWatches): void {
    switch (g.phase) {
      case 'owned':
        g.phase = 'idle';
        this.delete(g.gvr);
        // Deferred to the end of the caller's operation (flush), which may
        // still be walking instance state.
        this.releases.push(g.gvr);
        break;
      case 'idle':
        this.delete(g.gvr);
        break;
      case 'ensuring':
        // The watch manager is still adding us as an owner; settle() decides.
        break;
    }
  }

  /** Resolves once the coordinator owns a synced informer for `g`'s GVR. */
  acquire(g: GvrWatches): Promise<void> {
    if (g.phase === 'owned') return RESOLVED;
    if (g.phase === 'ensuring') return g.inflight!;
    g.phase = 'ensuring';
    let sync: Promise<void>;
    try {
      sync = Promise.resolve(this.watchManager.ensureWatch(g.gvr, this.ownerId));
    } catch (err) {
      sync = Promise.reject(err as Error);
    }
    const inflight = sync.then(
      () => this.synced(g),
      (err: unknown) => this.failed(g, err),
    );
    g.inflight = inflight;
    return inflight;
  }

  /** Releases the GVRs retired since the last flush. */
  flush(): void {
    if (this.releases.length === 0) return;
    for (const gvr of this.releases.splice(0)) this.release(gvr);
  }

  private synced(g: GvrWatches): void {
    g.inflight = undefined;
    if (g.entries.size !== 0) {
      g.phase = 'owned';
      return;
    }
    // Every request left while the informer was syncing.
    g.phase = 'idle';
    if (this.get(g.gvr) === g) this.delete(g.gvr);
    this.release(g.gvr);
  }

  /**
   * The watch manager dropped our ownership. Every request of the GVR was added
   * after the previous ownership ended, so all of them wait on this sync and
   * fail with it; none may stay in the indexes of a GVR nobody watches.
   */
  private failed(g: GvrWatches, err: unknown): never {
    g.inflight = undefined;
    g.phase = 'idle';
    this.log.warn({ err, gvr: g.key, requests: g.entries.size }, 'cannot watch child resource; dropping its requests');
    for (const entry of [...g.entries]) this.dropEntry(entry);
    if (g.entries.size === 0 && this.get(g.gvr) === g) this.delete(g.gvr);
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
