import type { Clock } from '@protean/core';
import type { GvrPattern } from './ResourceAllowList.js';

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
