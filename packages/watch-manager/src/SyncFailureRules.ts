import { apiStatusOf, RequeueNeededAfter, type Clock, type GroupVersionResource, type Logger } from '@protean/core';
import { kindRefusalOf } from './kindRefusal.js';
import type { ManagedInformer, SyncWaiter } from './ManagedInformer.js';
import type { SyncFailureMemory } from './SyncFailureMemory.js';
import { serverOf } from './unfixableFailure.js';
import { WatchError } from './WatchError.js';

/** What {@link SyncFailureRules} needs of its {@link InformerWatchManager}. */
export interface SyncFailureRulesDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** How long failures that waiting will not fix may last before the callers fail. */
  readonly failFastMs: number;
  /** How many such failures in a row that takes at least. */
  readonly failFastMinAttempts: number;
  /** The failure windows of the GVRs that failed to sync. */
  readonly failures: SyncFailureMemory;
  /** True while `entry` is the informer the manager holds for its GVR (not released). */
  isCurrent(entry: ManagedInformer): boolean;
  /** Drops `ownerId` from `entry`, rejecting its waiting calls with `err`. */
  dropOwner(entry: ManagedInformer, ownerId: string, err: Error): void;
}

/**
 * What becomes of the callers waiting on an informer that fails before its
 * first sync: a refusal (401, 403, 404) fails them at once, failures that
 * waiting will not fix (TLS verification, refused connections) after
 * `failFastMs`, anything else at the sync deadline; a failure to sync is
 * remembered per GVR, and later callers are turned away (`BackingOff`)
 * until its window has passed. A kind refusal is not remembered: the kind
 * comes back through the cluster, and `whenAvailable` says when.
 *
 * Easy to get wrong: after the first sync, failures change nothing here
 * (the informer retries on its own); only `ObjectsNotDelivered` still
 * drops the owners that asked for full objects.
 */
export class SyncFailureRules {
  constructor(private readonly deps: SyncFailureRulesDeps) {}

  /** The refusal of a caller of `gvr` while its last failure to sync is in its window, if it is. */
  backingOff(gvr: GroupVersionResource, key: string): WatchError | undefined {
    const failure = this.deps.failures.active(key);
    if (failure === undefined) return undefined;
    const waitMs = Math.ceil(failure.retryAtMs - this.deps.clock.now());
    const detail = `failed to sync ${failure.consecutive} time(s) in a row (${failure.error.message}); not retrying for another ${waitMs} ms`;
    // The window is the watch manager's refusal, not a failure of whoever asked: a pass failing on it is queued
    // again when the window ends (core's requeue signal, found along the cause chain), without a failure counted.
    const whenOver = new RequeueNeededAfter(failure.error, Math.max(0, waitMs));
    return new WatchError(gvr, 'BackingOff', detail, { cause: whenOver, status: failure.status });
  }

  /** The informer synced: its failures are forgotten. */
  synced(entry: ManagedInformer): void {
    this.clearFailFast(entry);
    this.deps.failures.clear(entry.key);
  }

  /** The informer stopped: no timer of it is left. */
  stopped(entry: ManagedInformer): void {
    this.clearFailFast(entry);
  }

  /** `waiter` waited `timeoutMs` for the informer to sync: its owner is dropped, and the failure remembered. */
  syncTimedOut(entry: ManagedInformer, waiter: SyncWaiter, timeoutMs: number): void {
    const last = entry.lastError;
    const status = apiStatusOf(last)?.code;
    const detail = `informer did not sync within ${timeoutMs} ms${last === undefined ? '' : ` (last error: ${last.message})`}`;
    const err = new WatchError(entry.gvr, 'SyncTimeout', detail, { cause: last, status });
    this.recordFailure(entry, err, status);
    this.deps.log.warn({ gvr: entry.key, ownerId: waiter.ownerId, err: last?.message }, 'informer did not sync in time; owner dropped');
    this.deps.dropOwner(entry, waiter.ownerId, err);
  }

  /** The informer reported a failed list or watch request (it retries on its own). */
  watchError(entry: ManagedInformer, err: Error): void {
    if (!this.deps.isCurrent(entry)) return;
    entry.lastError = err;
    if (err instanceof WatchError && err.reason === 'ObjectsNotDelivered') {
      // The owners that asked for objects are refused; the others keep the (metadata) informer.
      this.deps.log.warn({ gvr: entry.key, err: err.message }, 'the informer source delivers metadata only; full objects refused');
      for (const owner of [...entry.objectOwners.keys()]) this.deps.dropOwner(entry, owner, err);
      return;
    }
    if (entry.synced || entry.waiters.size === 0) return;
    const status = apiStatusOf(err)?.code;
    // kro-diff: a refusal (401/403/404) before the first sync fails the pending callers now, so a missing CRD or
    // RBAC rule shows at once; in kro they fail only at the sync deadline.
    const refusal = kindRefusalOf(entry.gvr, err);
    if (refusal !== undefined) {
      // Not a failure to remember: the kind comes back through the cluster, and whenAvailable says when.
      this.deps.log.debug(
        { gvr: entry.key, status, err: err.message },
        'kind not available before the informer synced; pending owners dropped',
      );
      for (const owner of [...entry.owners]) this.deps.dropOwner(entry, owner, refusal);
      return;
    }
    if (status !== 401) {
      this.otherFailure(entry, err);
      return;
    }
    const server = serverOf(err);
    const at = server === undefined ? '' : ` at ${server}`;
    const detail = `the API server${at} answered ${status} before the informer synced: ${err.message}`;
    const werr = new WatchError(entry.gvr, 'Unauthorized', detail, { cause: err, status, server });
    this.failAll(entry, werr, status, 'informer refused by the server before it synced; pending owners dropped');
  }

  /**
   * Counts a failure into the entry's unfixable streak, failing the callers
   * once it has lasted `failFastMs`, else arming a timer for that moment.
   */
  private otherFailure(entry: ManagedInformer, err: Error): void {
    const { clock, failFastMs } = this.deps;
    const now = clock.now();
    if (!entry.streak.observe(err, now)) {
      this.clearFailFast(entry);
      return;
    }
    if (this.checkFailFast(entry, false) || entry.failFastTimer !== undefined || !Number.isFinite(failFastMs)) return;
    const dueMs = (entry.streak.startedMs ?? now) + failFastMs - now;
    entry.failFastTimer = clock.setTimeout(
      () => {
        entry.failFastTimer = undefined;
        this.checkFailFast(entry, true);
      },
      Math.max(0, dueMs),
    );
  }

  /**
   * Fails every caller of `entry` if its unfixable streak is due; true if it
   * did. `fromTimer`: no failure just arrived, so the informer's own health
   * must still show it failing (it reports failures only, not recoveries).
   */
  private checkFailFast(entry: ManagedInformer, fromTimer: boolean): boolean {
    if (!this.deps.isCurrent(entry) || entry.synced || entry.waiters.size === 0) return false;
    const now = this.deps.clock.now();
    const last = entry.streak.last;
    if (last === undefined || !entry.streak.due(now, this.deps.failFastMs, this.deps.failFastMinAttempts)) return false;
    const health = fromTimer ? entry.informer.health() : undefined;
    if (health !== undefined && health.failing === undefined) return false;
    // kro-diff: a server that refuses every connection, or whose certificate does not verify, fails the pending
    // callers after failFastMs with the cause; in kro they wait for the sync deadline.
    const werr = entry.streak.toWatchError(entry.gvr, now, last);
    this.failAll(entry, werr, undefined, 'informer cannot reach the API server; pending owners dropped');
    return true;
  }

  private failAll(entry: ManagedInformer, err: WatchError, status: number | undefined, msg: string): void {
    this.recordFailure(entry, err, status);
    this.deps.log.warn({ gvr: entry.key, status, server: err.server, err: err.message }, msg);
    for (const owner of [...entry.owners]) this.deps.dropOwner(entry, owner, err);
  }

  private clearFailFast(entry: ManagedInformer): void {
    if (entry.failFastTimer !== undefined) this.deps.clock.clearTimeout(entry.failFastTimer);
    entry.failFastTimer = undefined;
  }

  private recordFailure(entry: ManagedInformer, err: WatchError, status: number | undefined): void {
    // One informer counts as one failure, however many of its callers time out.
    if (entry.failureRecorded) return;
    entry.failureRecorded = true;
    this.deps.failures.record(entry.key, err, status);
  }
}
