import type { Clock } from '@protean/core';
import { MAX_TIMER_DELAY_MS } from '@protean/core/internal';
import { checkTimerDelay } from './checkTimerDelay.js';
import { allowListOf, type GvrPattern } from './ResourceAllowList.js';
import { DEFAULT_FAILURE_INITIAL_MS, DEFAULT_FAILURE_MAX_MS } from './SyncFailureMemory.js';

/** `syncTimeoutMs` when unset (or 0 or less). */
export const DEFAULT_SYNC_TIMEOUT_MS = 30_000;
/** `failFastMs` when unset. */
export const DEFAULT_FAIL_FAST_MS = 3000;
/** `failFastMinAttempts` when unset. */
export const DEFAULT_FAIL_FAST_MIN_ATTEMPTS = 2;
/** `kindRecheckMs` when unset. */
export const DEFAULT_KIND_RECHECK_MS = 5000;

/**
 * Tuning of a {@link InformerWatchManager}; every field has a production
 * default. Every duration becomes a timer's delay, so each is at most
 * 2 147 483 647 ms (core's `MAX_TIMER_DELAY_MS`, the longest delay Node's
 * timers honour; past it a timer fires after 1 ms); `failFastMs` may also
 * be `Infinity`.
 */
export interface InformerWatchManagerOptions {
  /** Time source of sync deadlines, failure windows, resync and the informers' health ages. */
  readonly clock?: Clock;
  /** Initial value of {@link InformerWatchManager.syncTimeoutMs}. Default 30 000; 0 or less means the default. */
  readonly syncTimeoutMs?: number;
  /**
   * Window during which a GVR that failed to sync rejects new callers at
   * once: `initialMs` (default 1 000) doubling per consecutive failure up to
   * `maxMs` (default 300 000); a successful sync resets it. A caller turned
   * away retries when the window ends (a requeue after it), so both are
   * timer delays.
   */
  readonly failureBackoff?: { readonly initialMs?: number; readonly maxMs?: number };
  /**
   * A pending `ensureWatch` is rejected (`reason: 'TlsVerificationFailed'`
   * or `'ConnectionRefused'`) once every attempt of the informer has failed
   * that way for this long, over at least `failFastMinAttempts` attempts,
   * instead of at the sync deadline. Default 3 000; `Infinity` waits for
   * the deadline. Other failures (timeouts, resets, 5xx, 429) never count.
   */
  readonly failFastMs?: number;
  /**
   * How long `whenAvailable` waits before a refused kind (not served,
   * forbidden) is tried again when the informer source cannot tell when it
   * becomes available (a source without `whenAvailable`). Default 5 000.
   */
  readonly kindRecheckMs?: number;
  /** Fewest attempts of such a run before it fails the callers (a restarting server refuses once or twice too). Default 2. */
  readonly failFastMinAttempts?: number;
  /**
   * The GVRs informers may be started for: `ensureWatch` of any other GVR
   * rejects at once with a {@link ResourceNotAllowedError} naming it and
   * this option, starting nothing. Patterns are `group/version/resource`
   * (core group empty: `/v1/configmaps`) with `*` for any segment, or
   * objects with `*` or missing fields. Default: every GVR.
   *
   * A dynamic controller watches what its instances declare; this bounds
   * it, so the RBAC it needs stays the finite list of these patterns.
   */
  readonly allowedResources?: readonly GvrPattern[];
}

/**
 * Checks `options` where they enter: the {@link InformerWatchManager}
 * constructor given a caller's own, or `watchManagerModule` when it is
 * built (the watch managers its factory builds then check nothing again).
 * Throws a `RangeError` naming the first bad option (a `TypeError` for a
 * bad `allowedResources` pattern), and the limit it broke.
 */
export function checkInformerWatchManagerOptions(options: InformerWatchManagerOptions): void {
  checkSyncTimeoutMs(options.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS);
  const failFastMs = options.failFastMs ?? DEFAULT_FAIL_FAST_MS;
  if (!(failFastMs >= 0)) throw new RangeError(`InformerWatchManager: failFastMs must be >= 0, got ${String(failFastMs)}`);
  // Infinity waits for the sync deadline: no timer is armed for it.
  if (Number.isFinite(failFastMs)) checkTimerDelay('InformerWatchManager: failFastMs', failFastMs, 'Infinity (wait for the deadline)');
  const failFastMinAttempts = options.failFastMinAttempts ?? DEFAULT_FAIL_FAST_MIN_ATTEMPTS;
  if (!(failFastMinAttempts >= 1) || !Number.isInteger(failFastMinAttempts)) {
    throw new RangeError(`InformerWatchManager: failFastMinAttempts must be an integer >= 1, got ${String(failFastMinAttempts)}`);
  }
  const kindRecheckMs = options.kindRecheckMs ?? DEFAULT_KIND_RECHECK_MS;
  if (!(kindRecheckMs > 0)) throw new RangeError(`InformerWatchManager: kindRecheckMs must be > 0, got ${String(kindRecheckMs)}`);
  checkTimerDelay('InformerWatchManager: kindRecheckMs', kindRecheckMs);
  if (options.allowedResources !== undefined) allowListOf(options.allowedResources);
  const initialMs = options.failureBackoff?.initialMs ?? DEFAULT_FAILURE_INITIAL_MS;
  const maxMs = options.failureBackoff?.maxMs ?? DEFAULT_FAILURE_MAX_MS;
  checkTimerDelay('InformerWatchManager: failureBackoff.initialMs', initialMs);
  checkTimerDelay('InformerWatchManager: failureBackoff.maxMs', maxMs);
  if (!(initialMs >= 0) || !(maxMs >= initialMs)) {
    throw new RangeError(`failureBackoff: need 0 <= initialMs <= maxMs, got initialMs=${initialMs} maxMs=${maxMs}`);
  }
}

/**
 * Checks a sync timeout, given as an option or set on a watch manager: a
 * number up to `MAX_TIMER_DELAY_MS` (0 or less means the default). Throws
 * a `RangeError` naming `syncTimeoutMs` and the limit.
 */
export function checkSyncTimeoutMs(value: number): void {
  if (typeof value !== 'number' || Number.isNaN(value) || value > MAX_TIMER_DELAY_MS) {
    throw new RangeError(
      `InformerWatchManager: syncTimeoutMs must be a number of at most ${MAX_TIMER_DELAY_MS} ms (the longest delay Node's timers honour; ` +
        `0 or less means the default, ${DEFAULT_SYNC_TIMEOUT_MS}), got ${String(value)}`,
    );
  }
}
