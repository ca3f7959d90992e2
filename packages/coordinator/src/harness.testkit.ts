import { silentLogger, type GroupVersionResource, type WatchEvent } from '@protean/core';
import { EnqueueRecorder, FakeWatchManager } from '@protean/core/testing';
import { IndexedWatchCoordinator } from './IndexedWatchCoordinator.js';

/** A coordinator wired to a fake watch manager and an enqueue recorder. */
export interface Harness {
  readonly coordinator: IndexedWatchCoordinator;
  readonly watchManager: FakeWatchManager;
  readonly enqueued: EnqueueRecorder;
}

export function newHarness(mode: 'auto' | 'manual' = 'auto'): Harness {
  const watchManager = new FakeWatchManager({ sync: mode });
  const enqueued = new EnqueueRecorder();
  const coordinator = new IndexedWatchCoordinator(watchManager, enqueued.enqueue, silentLogger());
  return { coordinator, watchManager, enqueued };
}

/** A watch event; `oldLabels` makes it an update. */
export function event(
  gvr: GroupVersionResource,
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
  oldLabels?: Record<string, string>,
): WatchEvent {
  return oldLabels === undefined
    ? { type: 'add', gvr, namespace, name, labels }
    : { type: 'update', gvr, namespace, name, labels, oldLabels };
}
