import { silentLogger, type GroupVersionResource, type WatchEvent } from '@protean/core';
import { WatchCoordinator } from '../WatchCoordinator.js';
import { FakeWatchRegistry } from './FakeWatchRegistry.js';
import { RecordingEnqueue } from './RecordingEnqueue.js';

/** A coordinator wired to a fake registry and a recording enqueue. */
export interface Harness {
  readonly coordinator: WatchCoordinator;
  readonly registry: FakeWatchRegistry;
  readonly enqueued: RecordingEnqueue;
}

export function newHarness(mode: 'auto' | 'manual' = 'auto'): Harness {
  const registry = new FakeWatchRegistry(mode);
  const enqueued = new RecordingEnqueue();
  const coordinator = new WatchCoordinator(registry, enqueued.enqueue, silentLogger());
  return { coordinator, registry, enqueued };
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
