import { gvrKey, type GroupVersionResource, type KindUnavailableError, type Logger, type WatchManager } from '@protean/core';
import { kindUnavailableOf } from '@protean/core/internal';
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
 *
 * A kind the watch manager refuses as unavailable (not served, forbidden)
 * keeps its requests: the GVR waits (`waiting`) until the watch manager's
 * `whenAvailable` resolves, then syncs again, and once synced every
 * instance with a request on it is woken (`wake`), since they were parked
 * on the kind. One log line when a kind becomes unavailable, one when it
 * is back.
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
    /** Enqueues, once each, the instances with a request on a kind that became available. */
    private readonly wake: (gvrWatches: GvrWatches) => void,
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
      case 'waiting':
        gvrWatches.parked?.abort();
        gvrWatches.parked = undefined;
        gvrWatches.phase = 'idle';
        this.delete(gvrWatches.gvr);
        this.log.info({ gvr: gvrWatches.key }, 'no request waits for the kind any more');
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
    // Parked on the kind: refused at once, no request to the server until the watch manager says it may be back.
    if (gvrWatches.phase === 'waiting') return Promise.reject(gvrWatches.refusal);
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
    const wasUnavailable = gvrWatches.refusal;
    gvrWatches.refusal = undefined;
    if (gvrWatches.entries.size !== 0) {
      gvrWatches.phase = 'owned';
      if (wasUnavailable !== undefined) {
        this.log.info(
          { gvr: gvrWatches.key, requests: gvrWatches.entries.size },
          `kind ${gvrWatches.key} is available again; waking the instances that wait for it`,
        );
        this.wake(gvrWatches);
      }
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
    const refusal = kindUnavailableOf(err);
    if (refusal !== undefined && this.watchManager.whenAvailable !== undefined && gvrWatches.entries.size !== 0) {
      this.park(gvrWatches, refusal);
      throw err;
    }
    gvrWatches.refusal = undefined;
    this.log.warn({ err, gvr: gvrWatches.key, requests: gvrWatches.entries.size }, 'cannot watch child resource; dropping its requests');
    for (const entry of [...gvrWatches.entries]) this.dropEntry(entry);
    if (gvrWatches.entries.size === 0 && this.get(gvrWatches.gvr) === gvrWatches) this.delete(gvrWatches.gvr);
    this.flush();
    throw err;
  }

  /**
   * Keeps the GVR's requests while its kind is unavailable, and tries again
   * once the watch manager says it may be back. Logs the transition once
   * (a new refusal reason is a new transition).
   */
  private park(gvrWatches: GvrWatches, refusal: KindUnavailableError): void {
    const before = gvrWatches.refusal;
    gvrWatches.refusal = refusal;
    gvrWatches.phase = 'waiting';
    const parked = new AbortController();
    gvrWatches.parked = parked;
    const fields = { gvr: gvrWatches.key, reason: refusal.reason, requests: gvrWatches.entries.size };
    if (before === undefined || before.message !== refusal.message) {
      this.log.warn({ ...fields, error: refusal.message }, `kind ${gvrWatches.key} is not available; its requests wait for it`);
    } else if (this.log.isLevelEnabled('debug')) {
      this.log.debug(fields, 'kind still not available; waiting again');
    }
    let waiting: Promise<void>;
    try {
      waiting = Promise.resolve(this.watchManager.whenAvailable!(refusal, parked.signal));
    } catch (err) {
      this.log.error({ err, gvr: gvrWatches.key }, 'whenAvailable threw; trying the kind again now');
      waiting = Promise.resolve();
    }
    void waiting.then(
      () => this.retry(gvrWatches, parked),
      (err: unknown) => {
        this.log.error({ err, gvr: gvrWatches.key }, 'whenAvailable rejected; trying the kind again now');
        this.retry(gvrWatches, parked);
      },
    );
  }

  /** The kind may be available: sync again (a refusal parks it again). */
  private retry(gvrWatches: GvrWatches, parked: AbortController): void {
    if (parked.signal.aborted || gvrWatches.parked !== parked || this.get(gvrWatches.gvr) !== gvrWatches) return;
    gvrWatches.parked = undefined;
    gvrWatches.phase = 'idle';
    // Errors were logged by failed(); a refusal has parked the GVR again.
    this.acquire(gvrWatches).catch(() => undefined);
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
