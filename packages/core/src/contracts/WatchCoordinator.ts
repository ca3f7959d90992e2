import type { EnqueueFunc, WatchEvent } from '../events.js';
import type { GroupVersionResource, NamespacedName } from '../gvr.js';
import type { Logger } from '../logger.js';
import type { InstanceWatches, RouteExplanation, RouteQuery } from './DeclaredWatch.js';
import type { InstancePass } from './InstancePass.js';
import type { InstanceWatcher } from './InstanceWatcher.js';
import type { WatchManager } from './WatchManager.js';

/** Routes child events to instances (implemented by `IndexedWatchCoordinator`). */
export interface WatchCoordinator {
  routeEvent(event: WatchEvent): void;
  forInstance(parentGVR: GroupVersionResource, instance: NamespacedName): InstanceWatcher;
  /** Starts a reconcile pass of the instance; the controller calls it once per handler call. */
  beginPass(parentGVR: GroupVersionResource, instance: NamespacedName): InstancePass;
  removeInstance(parentGVR: GroupVersionResource, instance: NamespacedName): void;
  removeParentGVR(parentGVR: GroupVersionResource): void;
  instanceWatchCount(): number;
  watchRequestCount(): { scalar: number; collection: number };
  /**
   * Optional: every instance with at least one watch in the routing indexes,
   * and those watches (committed and those of a pass in progress), as plain
   * data. `DynamicController.status()` reads it.
   */
  declaredWatches?(): InstanceWatches[];
  /**
   * Optional: which instances an event for `query` (an add or delete with
   * these labels) is routed to, watch by watch, and for every other watch
   * of the GVR why it does not match. Must agree with {@link routeEvent};
   * `DynamicController.explain()` reads it.
   *
   * Easy to get wrong: an update is routed on its new labels and its old
   * ones, so it reaches the union of `explain` of both label sets.
   */
  explain?(query: RouteQuery): RouteExplanation;
}

/** Everything a watch coordinator factory gets from the container. */
export interface WatchCoordinatorDeps {
  readonly watchManager: WatchManager;
  readonly enqueue: EnqueueFunc;
  readonly logger: Logger;
}

/** Builds the controller's watch coordinator. */
export type WatchCoordinatorFactory = (deps: WatchCoordinatorDeps) => WatchCoordinator;
