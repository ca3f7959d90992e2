import type { InstanceWatcher, WatchRequest } from '@protean/core';

/**
 * An {@link InstanceWatcher} that watches nothing (seed: `NoopInstanceWatcher`):
 * for handler tests that do not care about child watches. `watch` resolves
 * at once, `done` does nothing.
 */
export class NoopInstanceWatcher implements InstanceWatcher {
  watch(_req: WatchRequest): Promise<void> {
    return Promise.resolve();
  }

  done(_commit: boolean): void {}
}
