import type { InstanceWatcher, WatchRequest } from '../contracts.js';

/**
 * The `ctx.watcher` a handler gets: the instance's watcher from the event
 * router, created on first use, remembering whether a watch cycle is still
 * open so the worker can settle it from the handler's outcome.
 */
export class SettlingWatcher implements InstanceWatcher {
  private inner: InstanceWatcher | undefined;
  private open = false;

  constructor(private readonly create: () => InstanceWatcher) {}

  watch(req: WatchRequest): Promise<void> {
    this.inner ??= this.create();
    this.open = true;
    return this.inner.watch(req);
  }

  done(commit: boolean): void {
    this.inner ??= this.create();
    this.open = false;
    this.inner.done(commit);
  }

  /** Ends a cycle the handler left open; returns whether there was one. */
  settle(commit: boolean): boolean {
    if (!this.open || this.inner === undefined) return false;
    this.done(commit);
    return true;
  }
}
