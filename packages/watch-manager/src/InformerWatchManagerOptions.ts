import type { Clock } from '@protean/core';

/** Tuning of a {@link InformerWatchManager}; every field has a production default. */
export interface InformerWatchManagerOptions {
  /** Time source of sync deadlines, sync polling and failure windows. */
  readonly clock?: Clock;
  /** Initial value of {@link InformerWatchManager.syncTimeoutMs}. Default 30 000. */
  readonly syncTimeoutMs?: number;
  /**
   * How often a pending `ensureWatch` checks `hasSynced()`. Default 10: the
   * check is a field read, and polling only runs while a sync is pending, so
   * a short interval costs nothing and keeps `register` latency low.
   */
  readonly syncPollIntervalMs?: number;
  /**
   * Window during which a GVR that failed to sync rejects new callers at
   * once: `initialMs` (default 1 000) doubling per consecutive failure up to
   * `maxMs` (default 300 000); a successful sync resets it.
   */
  readonly failureBackoff?: { readonly initialMs?: number; readonly maxMs?: number };
}
