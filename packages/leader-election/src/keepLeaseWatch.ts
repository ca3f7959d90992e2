import { errorMessage, sleepOrWake, type Clock, type Logger } from '@protean/core';

/** Options of {@link keepLeaseWatch}. */
export interface KeepLeaseWatchOptions {
  readonly clock: Clock;
  readonly retryPeriodMs: number;
  readonly leaseDurationMs: number;
  readonly log: Logger;
  /** Logged (info, once per distinct error) when the watch fails, e.g. `'watching the lease failed; polling it'`. */
  readonly failedMessage: string;
  /** Opens one watch of the lease(s); resolves when the server ends it, rejects when it fails. */
  readonly open: (stop: AbortSignal) => Promise<void>;
  /** Told whether a watch is open now (callers poll while it is not). */
  readonly onWatching: (watching: boolean) => void;
  /** Called after each failure, before the retry wait. */
  readonly onFailure?: () => void;
}

/**
 * Keeps a watch of one lease or a group of leases open until `stop`
 * aborts, for {@link LeaderElector} and sharding's member leases alike. A
 * watch the server ends is opened again at once, or a retry period after it
 * opened when it lasted less (a server that ends watches at once must not
 * make this spin). A failed watch is opened again a retry period later,
 * backing off to a lease duration while it keeps failing at once (no RBAC
 * for `watch`, say); one that had been open a while counts as a break, not a
 * refusal. Never rejects.
 */
export async function keepLeaseWatch(stop: AbortSignal, options: KeepLeaseWatchOptions): Promise<void> {
  const { clock, retryPeriodMs, leaseDurationMs, log } = options;
  let lastFailure = '';
  let failures = 0;
  while (!stop.aborted) {
    options.onWatching(true);
    const openedAt = clock.now();
    try {
      await options.open(stop);
      lastFailure = '';
      failures = 0;
      if (clock.now() - openedAt < retryPeriodMs) await sleepOrWake(clock, retryPeriodMs, stop).done;
    } catch (err) {
      options.onWatching(false);
      const message = errorMessage(err);
      if (message !== lastFailure) log.info({ err: message }, options.failedMessage);
      lastFailure = message;
      options.onFailure?.();
      if (clock.now() - openedAt >= retryPeriodMs) failures = 0;
      await sleepOrWake(clock, Math.min(retryPeriodMs * 2 ** failures++, leaseDurationMs), stop).done;
    }
  }
  options.onWatching(false);
}
