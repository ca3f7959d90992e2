import type { InstancePass, WatchRequest } from '../index.js';

/**
 * An instance watcher that watches nothing (seed: `NoopInstanceWatcher`):
 * for handler tests that do not care about child watches, as `ctx.watcher`
 * or as the pass a fake watch coordinator hands out. `watch` resolves at once,
 * `done` and `end` do nothing.
 */
export class NoopInstanceWatcher implements InstancePass {
  watch(_req: WatchRequest): Promise<void> {
    return Promise.resolve();
  }

  done(_commit: boolean): void {}

  end(_commit: boolean): void {}
}
