import type { WatchManager } from '../contracts/index.js';
import { gvrKey, type GroupVersionResource } from '../gvr.js';
import type { CachedObject, ObjectTransform } from '../informer.js';
import { objectTransformOf, stripObject } from '../stripObject.js';
import { validateGroupVersionResource } from '../gvrValidation.js';
import { ParentSyncError } from './ParentSyncError.js';
import type { CacheRequest, RegisterOptions } from './RegisterOptions.js';

/** Owner id of a registration's object caches in the watch manager. */
function cacheOwnerId(parentKey: string): string {
  return `cache:${parentKey}`;
}

/**
 * The GVRs each registration caches as full objects (`register`'s `cache`
 * option): held in the watch manager under the owner `cache:<parent>`, so
 * an informer keeps objects while any registration asks for them.
 */
export class ObjectCaches {
  /** parent gvrKey -> the GVRs it caches now. */
  private readonly held = new Map<string, GroupVersionResource[]>();
  /** parent gvrKey -> gvrKey -> the transform it caches that GVR with (undefined: the default trim only). */
  private readonly transforms = new Map<string, Map<string, ObjectTransform | undefined>>();

  constructor(private readonly watchManager: WatchManager) {}

  /** The requests of `options`, checked: a bad GVR throws before anything is watched. */
  static requestsOf(parent: GroupVersionResource, options: RegisterOptions | undefined): CacheRequest[] {
    const requests = (options?.cache ?? []).map((r) => ('gvr' in r ? r : { gvr: r }));
    for (const r of requests) {
      validateGroupVersionResource(r.gvr);
      if (r.indexes !== undefined && 'owner' in r.indexes) {
        throw new TypeError(
          `register(${gvrKey(parent)}): cache of ${gvrKey(r.gvr)} defines an index named "owner", which is built in (owner reference uids); name yours otherwise`,
        );
      }
    }
    const seen = new Set<string>();
    for (const r of requests) {
      const key = gvrKey(r.gvr);
      if (seen.has(key)) throw new TypeError(`register(${gvrKey(parent)}): cache lists ${key} twice`);
      seen.add(key);
    }
    return requests;
  }

  /**
   * Makes the informers of `requests` keep full objects for `parent`,
   * dropping what its previous registration cached and this one does not;
   * resolves once each has synced with objects. Rejects with a
   * {@link ParentSyncError} (`cached` set) when one does not sync, having
   * released what this call acquired.
   */
  async acquire(parent: GroupVersionResource, requests: readonly CacheRequest[]): Promise<void> {
    const parentKey = gvrKey(parent);
    const owner = cacheOwnerId(parentKey);
    const before = this.held.get(parentKey) ?? [];
    if (requests.length > 0 && this.watchManager.ensureObjects === undefined) {
      throw new TypeError(
        `register(${parentKey}): the bound watch manager cannot keep full objects (no ensureObjects); drop the cache option`,
      );
    }
    const acquired: GroupVersionResource[] = [];
    // kro-diff: a registration may ask for full objects of a GVR (one informer keeps them, trimmed, for routing and
    // reads), so handlers read specs and children from memory with read-your-writes; kro's handlers GET every object.
    try {
      for (const r of requests) {
        const gvr = { group: r.gvr.group, version: r.gvr.version, resource: r.gvr.resource };
        await this.watchManager.ensureObjects!(gvr, owner, {
          ...(r.transform === undefined ? {} : { transform: r.transform }),
          ...(r.indexes === undefined ? {} : { indexes: r.indexes }),
        });
        acquired.push(gvr);
      }
    } catch (err) {
      const kept = new Set(before.map(gvrKey));
      for (const gvr of acquired) if (!kept.has(gvrKey(gvr))) this.watchManager.releaseWatch(gvr, owner);
      throw new ParentSyncError(parent, err, requests[acquired.length]?.gvr);
    }
    const now = new Set(acquired.map(gvrKey));
    for (const gvr of before) if (!now.has(gvrKey(gvr))) this.watchManager.releaseWatch(gvr, owner);
    if (acquired.length === 0) {
      this.held.delete(parentKey);
      this.transforms.delete(parentKey);
    } else {
      this.held.set(parentKey, acquired);
      this.transforms.set(parentKey, new Map(requests.map((r) => [gvrKey(r.gvr), r.transform])));
    }
  }

  /**
   * What the informer of `gvr` does to each object it caches: core's
   * `stripObject`, then the transform the registrations cache it with (the
   * watch manager holds them all to one).
   */
  trimOf(gvr: GroupVersionResource): (obj: CachedObject) => CachedObject {
    const key = gvrKey(gvr);
    for (const byGvr of this.transforms.values()) {
      if (!byGvr.has(key)) continue;
      const transform = byGvr.get(key);
      return transform === undefined ? stripObject : objectTransformOf({ transform });
    }
    return stripObject;
  }

  /** Releases every cache of `parent` (deregistration). */
  release(parent: GroupVersionResource): void {
    const parentKey = gvrKey(parent);
    const owner = cacheOwnerId(parentKey);
    for (const gvr of this.held.get(parentKey) ?? []) this.watchManager.releaseWatch(gvr, owner);
    this.held.delete(parentKey);
    this.transforms.delete(parentKey);
  }
}
