import {
  DeletedFinalStateUnknown,
  type EventType,
  type GroupVersionResource,
  type PartialObjectMetadata,
  type WatchEvent,
} from '@protean/core';
import { parseNamespacedNameKey } from '@protean/core/internal';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Turns one informer callback into the normalized {@link WatchEvent} the
 * watch manager emits: labels are copied (never shared with the cache),
 * updates carry `oldLabels`/`oldGeneration`, and a delete tombstone
 * ({@link DeletedFinalStateUnknown}) is unwrapped to its last known object.
 * An add with `isInInitialList` is flagged `initialList`, one with
 * `takeover` `takeover`, and an update with `resync` (the informer's word
 * that it replays its cache) `resync`: each flag is what the informer said,
 * never guessed from the objects (a watch event that repeats a cached
 * object's resourceVersion is not a resync).
 *
 * Easy to get wrong: a tombstone may carry no object at all; the event is
 * then built from its `namespace/name` key with empty labels, not dropped.
 */
export function toWatchEvent(
  gvr: GroupVersionResource,
  type: EventType,
  obj: PartialObjectMetadata | DeletedFinalStateUnknown,
  oldObj?: PartialObjectMetadata,
  isInInitialList = false,
  takeover = false,
  resync = false,
): WatchEvent {
  if (obj instanceof DeletedFinalStateUnknown) {
    if (obj.obj !== undefined) return toWatchEvent(gvr, type, obj.obj);
    const { namespace, name } = parseNamespacedNameKey(obj.key);
    return { type, gvr, name, namespace, labels: {} };
  }
  const meta = obj.metadata;
  const event: Mutable<WatchEvent> = {
    type,
    gvr,
    name: meta.name,
    namespace: meta.namespace ?? '',
    labels: copyLabels(meta.labels),
  };
  if (meta.resourceVersion !== undefined) event.resourceVersion = meta.resourceVersion;
  if (meta.generation !== undefined) event.generation = meta.generation;
  if (type === 'add' && isInInitialList) event.initialList = true;
  if (type === 'add' && takeover) event.takeover = true;
  if (type === 'update') {
    if (oldObj !== undefined) {
      event.oldLabels = copyLabels(oldObj.metadata.labels);
      if (oldObj.metadata.generation !== undefined) event.oldGeneration = oldObj.metadata.generation;
    }
    if (resync) event.resync = true;
  }
  return event;
}

function copyLabels(labels: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> {
  return labels === undefined ? {} : { ...labels };
}
