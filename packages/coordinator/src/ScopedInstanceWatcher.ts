import type { InstanceWatcher, WatchRequest } from '@protean/core';
import type { InstanceState } from './InstanceState.js';

/** The coordinator side of a watcher. Internal to the package. */
export interface WatcherHost {
  watch(watcher: ScopedInstanceWatcher, req: WatchRequest): Promise<void>;
  done(watcher: ScopedInstanceWatcher, commit: boolean): void;
}

/**
 * The {@link InstanceWatcher} `IndexedWatchCoordinator.forInstance` hands out:
 * bound to one instance's state, so once that instance is removed the
 * watcher is stale (`watch` rejects, `done` does nothing) even if the
 * instance is later tracked again. Internal to the package.
 */
export class ScopedInstanceWatcher implements InstanceWatcher {
  constructor(
    private readonly host: WatcherHost,
    /** Re-pointed by the coordinator when another watcher re-created the instance's state. */
    public state: InstanceState,
  ) {}

  watch(req: WatchRequest): Promise<void> {
    return this.host.watch(this, req);
  }

  done(commit: boolean): void {
    this.host.done(this, commit);
  }
}
