import { gvrKey, namespacedNameKey, type EnqueueFunc } from '@protean/core';

/**
 * An {@link EnqueueFunc} that records every call as `parentGVR namespace/name`.
 * Pass `enqueue` (already bound) to the coordinator.
 */
export class RecordingEnqueue {
  readonly calls: string[] = [];
  readonly enqueue: EnqueueFunc = (parentGVR, instance) => {
    this.calls.push(`${gvrKey(parentGVR)} ${namespacedNameKey(instance)}`);
  };

  /** The calls so far, sorted, then forgets them. */
  take(): string[] {
    return this.calls.splice(0).sort();
  }
}
