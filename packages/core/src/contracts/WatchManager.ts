import type { EventHandler } from '../events.js';
import type { GroupVersionResource } from '../gvr.js';
import type { InformerCache, InformerSource } from '../informer.js';
import type { InformerHealth } from '../informerHealth.js';
import type { Logger } from '../logger.js';

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
  /** Drops `ownerId`; the informer stops when no owner remains. */
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
  readonly resyncPeriodMs: number;
  readonly onEvent: EventHandler;
  readonly logger: Logger;
}

/** Builds the controller's watch manager once its event callback exists. */
export type WatchManagerFactory = (deps: WatchManagerDeps) => WatchManager;
