import type { WatchRequest } from './WatchRequest.js';

/**
 * Scoped to one instance: declares, reconcile by reconcile, which resources
 * it depends on. Call `watch` before touching the resource, then `done`.
 */
export interface InstanceWatcher {
  watch(req: WatchRequest): Promise<void>;
  /** `true` commits this cycle's set; `false` keeps the last committed set. */
  done(commit: boolean): void;
}
