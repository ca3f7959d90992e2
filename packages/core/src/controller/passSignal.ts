import type { Clock } from '../clock.js';
import type { Validity } from '../contracts/Validity.js';
import { fenceSignal } from '../fence.js';
import type { GroupVersionResource, ObjectIdentifiers } from '../gvr.js';
import type { PassCancelledError } from './PassCancelledError.js';
import { ReconcileTimeoutError } from './ReconcileTimeoutError.js';

/** The signal of one pass, whether its time limit ran out, and whether it was cut off. */
export interface PassSignal {
  /** The pass's `ctx.signal`. */
  readonly signal: AbortSignal;
  /** The timeout the signal aborted with, if the pass outlived its limit. */
  timedOut(): ReconcileTimeoutError | undefined;
  /** Aborts the signal with `reason` (unless it already aborted). */
  cancel(reason: PassCancelledError): void;
  /** The reason given to `cancel`, if it aborted the signal. */
  cancelledBy(): PassCancelledError | undefined;
  /** Clears the timer and the listener on the shutdown signal; call it when the pass ends. */
  dispose(): void;
}

/** What {@link createPassSignal} needs. */
export interface PassSignalOptions {
  readonly shutdown: AbortSignal;
  readonly clock: Clock;
  /** 0: no limit. */
  readonly reconcileTimeoutMs: number;
  readonly gvr: GroupVersionResource;
  readonly item: ObjectIdentifiers;
  /** The lease the pass runs under (a leader term): tied to the signal so that `assertStillValid` checks it. */
  readonly validity?: Validity;
}

/**
 * The `ctx.signal` of one pass: aborted at shutdown (with the shutdown
 * signal's reason), by `cancel` (a {@link PassCancelledError}: the parent
 * was deregistered or the instance deleted) and, with a
 * `reconcileTimeoutMs`, when the pass outlives it (with a
 * {@link ReconcileTimeoutError}). The first of them wins. With a
 * `validity`, `assertStillValid` on the signal checks that lease and aborts
 * the signal when it has ended.
 *
 * Easy to get wrong: call `dispose` when the pass ends, or the timer and
 * the shutdown listener outlive it.
 */
export function createPassSignal(options: PassSignalOptions): PassSignal {
  const { shutdown, clock, reconcileTimeoutMs: limitMs, gvr, item, validity } = options;
  // kro-diff: a pass has a time limit (reconcileTimeoutMs, default 5 min): ctx.signal aborts at it and the pass is
  // retried with backoff; kro's handler context is cancelled only at shutdown, so one hung handler holds its worker.
  const abort = new AbortController();
  let timeout: ReconcileTimeoutError | undefined;
  let cancelled: PassCancelledError | undefined;
  const onShutdown = (): void => abort.abort(shutdown.reason);
  if (shutdown.aborted) onShutdown();
  else shutdown.addEventListener('abort', onShutdown, { once: true });
  const timer =
    limitMs > 0
      ? clock.setTimeout(() => {
          if (abort.signal.aborted) return;
          timeout = new ReconcileTimeoutError(gvr, item, limitMs);
          abort.abort(timeout);
        }, limitMs)
      : undefined;
  const signal = validity === undefined ? abort.signal : fenceSignal(abort, validity);
  return {
    signal,
    timedOut: () => timeout,
    cancel: (reason) => {
      if (abort.signal.aborted) return;
      cancelled = reason;
      abort.abort(reason);
    },
    cancelledBy: () => cancelled,
    dispose: () => {
      if (timer !== undefined) clock.clearTimeout(timer);
      shutdown.removeEventListener('abort', onShutdown);
    },
  };
}
