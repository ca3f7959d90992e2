import type { InstanceWatcher } from './InstanceWatcher.js';

/**
 * One reconcile pass of an instance (the handler's `ctx.watcher`), ended by
 * the controller from the handler's outcome.
 */
export interface InstancePass extends InstanceWatcher {
  /**
   * Ends the pass. If the instance's cycle was settled during the pass (by
   * this or any other watcher of the instance) and nothing was declared
   * after that, the pass is left as the handler settled it. Otherwise
   * `commit` true makes exactly what the pass declared, possibly nothing,
   * the committed set, and `false` keeps the previous set.
   */
  end(commit: boolean): void;
}
