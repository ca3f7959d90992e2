import type { GroupVersionResource, NamespacedName } from './gvr.js';

/** The kind of change that produced a {@link WatchEvent}. */
export type EventType = 'add' | 'update' | 'delete';

/**
 * A normalized watch event emitted by a watch registry (seed: `Event`).
 * Consumers decide what to act on: the watch layer neither compares old and
 * new objects nor filters by generation.
 */
export interface WatchEvent {
  readonly type: EventType;
  readonly gvr: GroupVersionResource;
  readonly name: string;
  readonly namespace: string;
  /** A copy of the object's labels (never shared with the informer cache). */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * Labels of the previous version of the object, on update events only; a
   * collection watch uses them to notice an object leaving its selector.
   */
  readonly oldLabels?: Readonly<Record<string, string>>;
  /** `metadata.generation` of the object, when the server reported one. */
  readonly generation?: number;
  /** `metadata.generation` of the previous version, on update events only. */
  readonly oldGeneration?: number;
}

/** Receives every normalized event of a watch registry. */
export type EventHandler = (event: WatchEvent) => void;

/**
 * Asks for an instance of `parentGVR` to be reconciled again; the
 * coordinator calls it when one of the instance's watched resources changes.
 */
export type EnqueueFunc = (parentGVR: GroupVersionResource, instance: NamespacedName) => void;
