import type { EventHandler } from '../events.js';
import type { GroupVersionResource } from '../gvr.js';
import type { InformerCache, InformerSource, ObjectCacheOptions } from '../informer.js';
import type { InformerHealth } from '../informerHealth.js';
import type { Logger } from '../logger.js';
import type { KindUnavailableError } from '../KindUnavailableError.js';

/**
 * Owner-counted informers, one per GVR (implemented by `InformerWatchManager` in
 * `@protean/watch-manager`).
 */
export interface WatchManager {
  /**
   * Adds `ownerId` to the owners of `gvr`, starting its informer if needed,
   * and resolves once the informer has synced. On failure only `ownerId` is
   * dropped and the promise rejects with an error naming the GVR.
   */
  ensureWatch(gvr: GroupVersionResource, ownerId: string): Promise<void>;
  /**
   * Optional: {@link ensureWatch}, and while `ownerId` holds the informer
   * it keeps full objects (trimmed by core's `stripObject`, then
   * `options.transform`) instead of metadata only; resolves once the
   * informer has synced with full objects. The first owner asking switches
   * a running metadata-only informer to full objects (a new list/watch
   * whose first list replaces the cache), and `releaseWatch` of the last
   * such owner switches it back. Absent: the watch manager keeps metadata
   * only, and the controller refuses object caching.
   *
   * Easy to get wrong: the transform is the informer's, not the owner's: a
   * second owner asking with a different transform function is refused.
   */
  ensureObjects?(gvr: GroupVersionResource, ownerId: string, options?: ObjectCacheOptions): Promise<void>;
  /**
   * Optional: resolves once the kind `refusal` (an `ensureWatch`
   * rejection) refused may be available again, or when `signal` aborts;
   * it never rejects. The watch coordinator parks the instances that
   * declared a watch on the kind until then, and tries again. Absent: a
   * refused kind's watches are dropped with the pass, and the instance
   * is only retried on the workers' one-minute recheck.
   */
  whenAvailable?(refusal: KindUnavailableError, signal: AbortSignal): Promise<void>;
  /** Drops `ownerId` (and its request for full objects); the informer stops when no owner remains. */
  releaseWatch(gvr: GroupVersionResource, ownerId: string): void;
  getInformer(gvr: GroupVersionResource): InformerCache | undefined;
  activeWatchCount(): number;
  shutdown(): void;
  /** Optional: one entry per running informer, in start order (health endpoints and metrics read it). */
  health?(): WatchHealth[];
}

/** One running informer as {@link WatchManager.health} reports it. */
export interface WatchHealth {
  readonly gvr: GroupVersionResource;
  /** Who holds the informer (`parent:<gvr>`, `coordinator`, ...). */
  readonly owners: readonly string[];
  /** The watch manager saw the informer (and its own handler) synced. */
  readonly synced: boolean;
  /** The informer's own report. */
  readonly informer: InformerHealth;
}

/** Everything a watch manager factory gets from the container. */
export interface WatchManagerDeps {
  readonly source: InformerSource;
  /** The controller config's, checked by `resolveConfig` (0 to 2^31 - 1, the longest timer): taken as it is. */
  readonly resyncPeriodMs: number;
  readonly onEvent: EventHandler;
  readonly logger: Logger;
}

/** Builds the controller's watch manager once its event callback exists. */
export type WatchManagerFactory = (deps: WatchManagerDeps) => WatchManager;
