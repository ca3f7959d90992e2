import { gvrKey, namespacedNameKey, type GroupVersionResource, type NamespacedName } from '@protean/core';
import type { WatchEntry } from './WatchEntry.js';

/**
 * What the coordinator knows about one instance: the last committed set of
 * requests and the set of the cycle in progress, both keyed by node id.
 * Every entry referenced by either set is in the routing indexes; an entry
 * re-requested with the same target is the same object in both sets.
 *
 * Internal to the package.
 */
export class InstanceState {
  readonly parentGVR: GroupVersionResource;
  readonly instance: NamespacedName;
  readonly parentKey: string;
  readonly instanceKey: string;
  /** Requests of the last cycle that ended with `done(true)`. */
  committed = new Map<string, WatchEntry>();
  /** Requests of the cycle in progress. */
  pending = new Map<string, WatchEntry>();
  /** Entries of this instance currently in the routing indexes. */
  indexedCount = 0;
  /** Set by removeInstance/removeParentGVR; a removed state never comes back. */
  removed = false;
  /** Number of the last routed event that enqueued this instance (per-event dedupe). */
  routedStamp = 0;
  /** The coordinator's activity count at this instance's last `watch` and last `done` (passes compare them). */
  lastWatchAt = 0;
  lastDoneAt = 0;

  constructor(parentGVR: GroupVersionResource, instance: NamespacedName) {
    // Copies: callers may reuse or mutate the objects they passed in.
    this.parentGVR = Object.freeze({ group: parentGVR.group, version: parentGVR.version, resource: parentGVR.resource });
    this.instance = Object.freeze({ namespace: instance.namespace, name: instance.name });
    this.parentKey = gvrKey(parentGVR);
    this.instanceKey = namespacedNameKey(instance);
  }

  /** `parentGVR namespace/name`, for messages. */
  describe(): string {
    return `${this.parentKey} ${this.instanceKey}`;
  }

  isEmpty(): boolean {
    return this.committed.size === 0 && this.pending.size === 0;
  }
}
