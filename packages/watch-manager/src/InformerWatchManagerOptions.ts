import type { Clock } from '@protean/core';
import { allowListOf, type GvrPattern } from './ResourceAllowList.js';
import { DEFAULT_FAILURE_INITIAL_MS, DEFAULT_FAILURE_MAX_MS } from './SyncFailureMemory.js';

/** `failFastMs` when unset. */
export const DEFAULT_FAIL_FAST_MS = 3000;
/** `failFastMinAttempts` when unset. */
export const DEFAULT_FAIL_FAST_MIN_ATTEMPTS = 2;
/** `kindRecheckMs` when unset. */
export const DEFAULT_KIND_RECHECK_MS = 5000;

/** Tuning of a {@link InformerWatchManager}; every field has a production default. */
export interface InformerWatchManagerOptions {
  /** Time source of sync deadlines, failure windows, resync and the informers' health ages. */
  readonly clock?: Clock;
  /** Initial value of {@link InformerWatchManager.syncTimeoutMs}. Default 30 000. */
  readonly syncTimeoutMs?: number;
  /**
   * Window during which a GVR that failed to sync rejects new callers at
   * once: `initialMs` (default 1 000) doubling per consecutive failure up to
   * `maxMs` (default 300 000); a successful sync resets it.
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
 * bad `allowedResources` pattern).
 */
export function checkInformerWatchManagerOptions(options: InformerWatchManagerOptions): void {
  const failFastMs = options.failFastMs ?? DEFAULT_FAIL_FAST_MS;
  if (!(failFastMs >= 0)) throw new RangeError(`InformerWatchManager: failFastMs must be >= 0, got ${String(failFastMs)}`);
  const failFastMinAttempts = options.failFastMinAttempts ?? DEFAULT_FAIL_FAST_MIN_ATTEMPTS;
  if (!(failFastMinAttempts >= 1) || !Number.isInteger(failFastMinAttempts)) {
    throw new RangeError(`InformerWatchManager: failFastMinAttempts must be an integer >= 1, got ${String(failFastMinAttempts)}`);
  }
  const kindRecheckMs = options.kindRecheckMs ?? DEFAULT_KIND_RECHECK_MS;
  if (!(kindRecheckMs > 0)) throw new RangeError(`InformerWatchManager: kindRecheckMs must be > 0, got ${String(kindRecheckMs)}`);
  if (options.allowedResources !== undefined) allowListOf(options.allowedResources);
  const initialMs = options.failureBackoff?.initialMs ?? DEFAULT_FAILURE_INITIAL_MS;
  const maxMs = options.failureBackoff?.maxMs ?? DEFAULT_FAILURE_MAX_MS;
  if (!(initialMs >= 0) || !(maxMs >= initialMs)) {
    throw new RangeError(`failureBackoff: need 0 <= initialMs <= maxMs, got initialMs=${initialMs} maxMs=${maxMs}`);
  }
}
