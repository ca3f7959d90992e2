import type { GroupVersionResource, InstancePass, InstanceWatcher, NamespacedName, WatchRequest } from '@protean/core';

/** The coordinator side of a pass. Internal to the package. */
export interface PassHost {
  forInstance(parentGVR: GroupVersionResource, instance: NamespacedName): InstanceWatcher;
  /** Settles the instance's cycle unless it was settled after `since` with nothing declared later. */
  endPass(parentGVR: GroupVersionResource, instance: NamespacedName, since: number, commit: boolean): void;
}

/**
 * The {@link InstancePass} `IndexedWatchCoordinator.beginPass` hands out: a
 * watcher of the instance created on first use (most passes of most
 * instances declare nothing new), and the coordinator's activity count at
 * the start of the pass (it increases on every `watch` and `done` of any
 * instance), so `end` can tell whether the handler settled the cycle itself.
 * Internal to the package.
 */
export class CoordinatorPass implements InstancePass {
  private inner: InstanceWatcher | undefined;

  constructor(
    private readonly host: PassHost,
    private readonly parentGVR: GroupVersionResource,
    private readonly instance: NamespacedName,
    private readonly startedAt: number,
  ) {}

  watch(req: WatchRequest): Promise<void> {
    this.inner ??= this.host.forInstance(this.parentGVR, this.instance);
    return this.inner.watch(req);
  }

  done(commit: boolean): void {
    this.inner ??= this.host.forInstance(this.parentGVR, this.instance);
    this.inner.done(commit);
  }

  end(commit: boolean): void {
    this.host.endPass(this.parentGVR, this.instance, this.startedAt, commit);
  }
}
