import type { EnqueueFunc, WatchEvent } from '../events.js';
import type { GroupVersionResource, NamespacedName } from '../gvr.js';
import type { Logger } from '../logger.js';
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
}

/** Everything a watch coordinator factory gets from the container. */
export interface WatchCoordinatorDeps {
  readonly watchManager: WatchManager;
  readonly enqueue: EnqueueFunc;
  readonly logger: Logger;
}

/** Builds the controller's watch coordinator. */
export type WatchCoordinatorFactory = (deps: WatchCoordinatorDeps) => WatchCoordinator;
