import type { GroupVersionResource, NamespacedName } from './gvr.js';
import type { PassTrigger } from './tracing/PassTrigger.js';

/** The kind of change that produced a {@link WatchEvent}. */
export type EventType = 'add' | 'update' | 'delete';

/**
 * A normalized watch event emitted by a watch manager (seed: `Event`).
 * Consumers decide what to act on: the watch layer neither compares old and
 * new objects nor filters by generation; it only flags the two kinds of
 * event that replay state rather than report a change (`initialList`,
 * `resync`).
 *
 * kro-diff: besides what kro's events carry, a WatchEvent has
 * `generation`/`oldGeneration` and the `initialList`/`resync` flags, so
 * consumers can skip status-only updates and replays.
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
  /** `metadata.resourceVersion` of the object, when known (a tombstone without its object has none). */
  readonly resourceVersion?: string;
  /** `metadata.generation` of the object, when the server reported one. */
  readonly generation?: number;
  /** `metadata.generation` of the previous version, on update events only. */
  readonly oldGeneration?: number;
  /**
   * True for adds delivered while the informer's initial list is being
   * delivered (before it synced); absent otherwise, including for adds found
   * by a later relist. Easy to get wrong: these are the first sight of every
   * existing object, so a parent must still be reconciled for them.
   */
  readonly initialList?: boolean;
  /**
   * True for update events replayed from the cache by a periodic resync
   * (old and new have the same resourceVersion); absent otherwise. Nothing
   * changed on the server, so a generation comparison always drops them.
   */
  readonly resync?: boolean;
  /**
   * True for adds of objects that entered this replica's share because it
   * took a range over (a shard rebalance); absent otherwise. They are not
   * changes: the parents among them are reconciled at the queue's low
   * priority (source `takeover`), and children are not routed.
   */
  readonly takeover?: boolean;
}

/** Receives every normalized event of a watch manager. */
export type EventHandler = (event: WatchEvent) => void;

/**
 * Asks for an instance of `parentGVR` to be reconciled again; the
 * coordinator calls it when one of the instance's watched resources changes,
 * with the event and the watches it matched as `trigger` while tracing is on
 * (`tracing.enabled`), which the instance's next pass links to.
 */
export type EnqueueFunc = (parentGVR: GroupVersionResource, instance: NamespacedName, trigger?: PassTrigger) => void;
