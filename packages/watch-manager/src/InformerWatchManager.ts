import {
  errorMessage,
  gvrKey,
  realClock,
  sleepOrWake,
  type Clock,
  type DeletedFinalStateUnknown,
  type EventHandler,
  type EventType,
  type GroupVersionResource,
  type InformerCache,
  type InformerSource,
  type KindUnavailableError,
  type Logger,
  type ObjectCacheOptions,
  type PartialObjectMetadata,
  type WatchHealth,
  type WatchManager,
} from '@protean/core';
import { markChecked, validateGroupVersionResource, wasChecked } from '@protean/core/internal';
import { Informer } from './Informer.js';
import { ManagedInformer } from './ManagedInformer.js';
import { SyncFailureMemory } from './SyncFailureMemory.js';
import { SyncFailureRules } from './SyncFailureRules.js';
import { toWatchEvent } from './toWatchEvent.js';
import { allowListOf, type ResourceAllowList } from './ResourceAllowList.js';
import { objectsNotDelivered, ResourceNotAllowedError, WatchError } from './WatchError.js';
import {
  checkInformerWatchManagerOptions,
  checkSyncTimeoutMs,
  DEFAULT_FAIL_FAST_MIN_ATTEMPTS,
  DEFAULT_FAIL_FAST_MS,
  DEFAULT_KIND_RECHECK_MS,
  DEFAULT_SYNC_TIMEOUT_MS,
  type InformerWatchManagerOptions,
} from './InformerWatchManagerOptions.js';
import { checkResyncPeriodMs } from './InformerOptions.js';

/**
 * One shared informer per GVR, started on first use and stopped when its
 * last owner releases it (seed: `WatchManager`). Each informer is the
 * engine ({@link Informer}: cache, relist diff, resync, sync signal,
 * health) over a list/watch from the source; every change of its cache
 * becomes one normalized `WatchEvent` passed to `onEvent`.
 *
 * Ownership is a set, not a counter: a second `ensureWatch` by the same
 * owner is a no-op and one `releaseWatch` drops it. A promise returned by
 * `ensureWatch` resolves only if, at that moment, the owner holds a synced
 * informer; so a `releaseWatch` while the owner's `ensureWatch` is still
 * waiting rejects that promise (`reason: 'Released'`).
 *
 * A GVR the server does not serve (404) or forbids (403) before the first
 * sync fails its pending callers at once with core's `KindNotServedError`
 * or `WatchForbiddenError`, and is not remembered as a failure:
 * {@link whenAvailable} tells when to try again. A 401 fails them at once
 * too (`reason: 'Unauthorized'`); an informer whose every attempt fails TLS
 * verification or is refused a connection fails them after `failFastMs`
 * (3 s); and a GVR that failed to sync turns later callers
 * away at once (`reason: 'BackingOff'`) until its failure window (1 s
 * doubling to 5 min) has passed ({@link SyncFailureRules}).
 */
export class InformerWatchManager implements WatchManager {
  private timeoutMs: number;
  private readonly entries = new Map<string, ManagedInformer>();
  /** What failures before the first sync do to the waiting callers, and the memory of failed syncs. */
  private readonly failureRules: SyncFailureRules;
  private readonly clock: Clock;
  private readonly kindRecheckMs: number;
  private readonly log: Logger;
  /** `allowedResources`, compiled; undefined: every GVR is allowed. */
  private readonly allowList: ResourceAllowList | undefined;
  private isShutdown = false;
  /** Aborted by `shutdown`: ends every `whenAvailable` wait. */
  private readonly stopping = new AbortController();

  /**
   * Checks `resyncPeriodMs` and `options` (a `RangeError` naming the first
   * bad one and the limit: a timer's delay is at most core's
   * `MAX_TIMER_DELAY_MS`) unless they were checked where they entered:
   * options from `watchManagerModule`, with a `resyncPeriodMs` from
   * `WatchManagerDeps` (core's `resolveConfig` checked it).
   */
  constructor(
    private readonly source: InformerSource,
    private readonly resyncPeriodMs: number,
    private readonly onEvent: EventHandler,
    logger: Logger,
    options: InformerWatchManagerOptions = {},
  ) {
    if (!wasChecked(options)) {
      checkResyncPeriodMs('InformerWatchManager', resyncPeriodMs);
      checkInformerWatchManagerOptions(options);
    }
    this.clock = options.clock ?? realClock;
    this.timeoutMs = options.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
    this.kindRecheckMs = options.kindRecheckMs ?? DEFAULT_KIND_RECHECK_MS;
    this.allowList = options.allowedResources === undefined ? undefined : allowListOf(options.allowedResources);
    this.log = logger.child({ component: 'watch-manager' });
    this.failureRules = new SyncFailureRules({
      clock: this.clock,
      log: this.log,
      failFastMs: options.failFastMs ?? DEFAULT_FAIL_FAST_MS,
      failFastMinAttempts: options.failFastMinAttempts ?? DEFAULT_FAIL_FAST_MIN_ATTEMPTS,
      failures: new SyncFailureMemory(this.clock, options.failureBackoff?.initialMs, options.failureBackoff?.maxMs),
      isCurrent: (entry) => this.entries.get(entry.key) === entry,
      dropOwner: (entry, ownerId, err) => this.dropOwner(entry, ownerId, err),
    });
  }

  /** Longest an `ensureWatch` waits for the informer to sync, read at each call; 0 or less means the default, 30 000. Checked when set. */
  get syncTimeoutMs(): number {
    return this.timeoutMs;
  }

  set syncTimeoutMs(value: number) {
    checkSyncTimeoutMs(value);
    this.timeoutMs = value;
  }

  /**
   * Adds `ownerId` to the owners of `gvr`, starting its informer if none
   * runs, and resolves once that informer has synced. Rejects with a
   * {@link WatchError} naming the GVR on timeout, refusal, release or
   * shutdown; only `ownerId` is dropped, never another owner's informer.
   * A GVR that breaks Kubernetes' naming rules rejects at once with core's
   * `InvalidGroupVersionResourceError`, and one outside `allowedResources`
   * with a {@link ResourceNotAllowedError}, starting nothing.
   */
  ensureWatch(gvr: GroupVersionResource, ownerId: string): Promise<void> {
    return this.ensure(gvr, ownerId, undefined);
  }

  /**
   * {@link ensureWatch}, and the informer keeps full objects (core's
   * `stripObject`, then `options.transform`) while `ownerId` holds it:
   * resolves once it has synced with full objects. The first owner asking
   * switches a running informer to a new list/watch of full objects (the
   * old one feeds the cache until the new one listed; unchanged objects
   * produce no event); `releaseWatch` of the last such owner switches it
   * back to metadata only. Rejects with a {@link WatchError}
   * (`TransformConflict`) when other owners keep the objects with another
   * transform. The only owner asking again with another transform (a
   * parent registered again) switches the informer to it, and resolves
   * once the objects are cached with it.
   */
  ensureObjects(gvr: GroupVersionResource, ownerId: string, options: ObjectCacheOptions = {}): Promise<void> {
    return this.ensure(gvr, ownerId, options);
  }

  private ensure(gvr: GroupVersionResource, ownerId: string, objects: ObjectCacheOptions | undefined): Promise<void> {
    const badInput = checkArgs(gvr, ownerId);
    if (badInput !== undefined) return Promise.reject(badInput);
    if (this.isShutdown) return Promise.reject(new WatchError(gvr, 'Shutdown', 'the watch manager is shut down'));
    // Not a sync failure: nothing is started, so nothing is remembered or backed off.
    if (this.allowList !== undefined && !this.allowList.allows(gvr)) {
      // kro-diff: an allow-list of GVRs bounds what instances may make the controller watch (and so its RBAC); kro
      // watches whatever a graph declares.
      return Promise.reject(new ResourceNotAllowedError(gvr, this.allowList.patterns));
    }
    const key = gvrKey(gvr);
    let entry = this.entries.get(key);
    if (entry === undefined || !entry.synced) {
      // kro-diff: a GVR that failed to sync recently turns callers away at once (`BackingOff`) until its failure
      // window (1 s doubling to 5 min) has passed, so callers do not each wait out a sync that is likely to fail
      // again; kro has no such window.
      const backingOff = this.failureRules.backingOff(gvr, key);
      if (backingOff !== undefined) return Promise.reject(backingOff);
    }
    if (objects !== undefined && entry !== undefined) {
      const conflict = entry.transformConflict(ownerId, objects);
      if (conflict !== undefined) return Promise.reject(new WatchError(gvr, 'TransformConflict', conflict));
      const clash = entry.indexConflict(objects);
      if (clash !== undefined) return Promise.reject(new WatchError(gvr, 'IndexConflict', clash));
    }
    try {
      if (entry === undefined) entry = this.start(gvr, key, objects);
      else if (objects !== undefined && (entry.objects === undefined || entry.objects.transform !== objects.transform)) {
        // Full objects asked for the first time, or by the only owner keeping them with another transform (a parent
        // registered again with a new one: no other owner's transform conflicts, or it was refused above).
        this.switchTo(entry, objects);
      }
    } catch (err) {
      if (err instanceof WatchError) return Promise.reject(err);
      return Promise.reject(new WatchError(gvr, 'InformerError', `creating the informer failed: ${errorMessage(err)}`, { cause: err }));
    }
    entry.owners.add(ownerId);
    if (objects !== undefined) entry.objectOwners.set(ownerId, objects);
    for (const [name, fn] of Object.entries(objects?.indexes ?? {})) entry.informer.defineIndex(name, fn);
    const wantsObjects = objects !== undefined;
    if ((entry.synced || this.checkSynced(entry)) && (!wantsObjects || entry.holdsAskedObjects())) return Promise.resolve();
    const current = entry;
    const timeoutMs = this.timeoutMs > 0 ? this.timeoutMs : DEFAULT_SYNC_TIMEOUT_MS;
    return current.wait(ownerId, wantsObjects, timeoutMs, (waiter) => this.failureRules.syncTimedOut(current, waiter, timeoutMs));
  }

  /**
   * Resolves once the kind `refusal` refused may be available again (the
   * informer source's word: a CRD created or changed, RBAC granting the
   * verb), or when `signal` aborts; never rejects. A source that cannot
   * tell (no `whenAvailable`) is asked again after `kindRecheckMs`.
   */
  whenAvailable(refusal: KindUnavailableError, signal: AbortSignal): Promise<void> {
    const either = AbortSignal.any([signal, this.stopping.signal]);
    if (this.source.whenAvailable !== undefined) return this.source.whenAvailable(refusal, either);
    return sleepOrWake(this.clock, this.kindRecheckMs, either).done;
  }

  /** Drops `ownerId` from `gvr`'s owners; stops the informer when none remains. */
  releaseWatch(gvr: GroupVersionResource, ownerId: string): void {
    const entry = this.entries.get(gvrKey(gvr));
    if (entry === undefined || !entry.owners.has(ownerId)) return;
    // kro-diff: releasing an owner rejects its pending `ensureWatch` (`Released`), so no caller is told it holds a
    // watch it gave up; kro's waiting call would still succeed for an owner that is gone.
    const err = new WatchError(entry.gvr, 'Released', `owner ${JSON.stringify(ownerId)} released the watch before it synced`);
    this.dropOwner(entry, ownerId, err);
  }

  /** The running informer of `gvr`, if any owner holds it (synced or not). */
  getInformer(gvr: GroupVersionResource): InformerCache | undefined {
    return this.entries.get(gvrKey(gvr))?.informer;
  }

  /** Number of running informers. */
  activeWatchCount(): number {
    return this.entries.size;
  }

  /**
   * One entry per running informer, in start order: its owners, whether the
   * manager saw it synced, and the informer's `health()` report. Health
   * endpoints and metrics read this.
   */
  health(): WatchHealth[] {
    const out: WatchHealth[] = [];
    for (const e of this.entries.values()) {
      out.push({ gvr: e.gvr, owners: [...e.owners], synced: e.synced, informer: e.informer.health() });
    }
    return out;
  }

  /** Stops every informer and rejects pending `ensureWatch` calls; later calls reject. Idempotent. */
  shutdown(): void {
    this.isShutdown = true;
    this.stopping.abort();
    for (const entry of [...this.entries.values()]) {
      this.stop(entry, new WatchError(entry.gvr, 'Shutdown', 'the watch manager shut down before the informer synced'));
    }
  }

  /**
   * Runs a new list/watch under the informer, of full objects (`objects`)
   * or metadata only; the old one feeds the cache until the new one listed.
   */
  private switchTo(entry: ManagedInformer, objects: ObjectCacheOptions | undefined): void {
    const notOlderThan = entry.informer.lastEventResourceVersion();
    const options = { ...(notOlderThan === undefined ? {} : { notOlderThan }), ...(objects === undefined ? {} : { objects }) };
    const listWatch = this.source.createListWatch(entry.gvr, options);
    if (objects !== undefined && listWatch.delivers === 'metadata') {
      throw objectsNotDelivered(entry.gvr, 'its list/watch says it delivers metadata');
    }
    entry.informer.switchSource(listWatch, objects !== undefined);
    entry.objects = objects;
    this.log.debug({ gvr: entry.key, objects: objects !== undefined }, 'informer switching its list/watch');
  }

  private start(gvr: GroupVersionResource, key: string, objects: ObjectCacheOptions | undefined): ManagedInformer {
    const ownGvr: GroupVersionResource = Object.freeze({ group: gvr.group, version: gvr.version, resource: gvr.resource });
    const listWatch = this.source.createListWatch(ownGvr, objects === undefined ? undefined : { objects });
    if (objects !== undefined && listWatch.delivers === 'metadata')
      throw objectsNotDelivered(ownGvr, 'its list/watch says it delivers metadata');
    // The listener runs only once the informer runs, after `entry` is set.
    const informer = new Informer(
      listWatch,
      {
        onAdd: (obj, isInInitialList, takeover) => this.emit(entry, 'add', obj, undefined, isInInitialList, takeover),
        onUpdate: (oldObj, newObj, resync) => this.emit(entry, 'update', newObj, oldObj, false, false, resync),
        onDelete: (obj) => this.emit(entry, 'delete', obj),
        onSynced: () => this.checkSynced(entry),
        onError: (err) => this.failureRules.watchError(entry, err),
        onSourceSwitched: () => this.checkSynced(entry),
      },
      // Checked by this watch manager's constructor (or where its settings entered): the engine checks nothing again.
      markChecked({ resyncPeriodMs: this.resyncPeriodMs, clock: this.clock, logger: this.log, holdsObjects: objects !== undefined }),
    );
    const entry = new ManagedInformer(key, ownGvr, informer, objects, this.clock);
    // In the map before it runs: a source that lists at once must have its initial adds emitted.
    this.entries.set(key, entry);
    try {
      informer.run(entry.abort.signal);
    } catch (err) {
      this.entries.delete(key);
      entry.abort.abort();
      throw err;
    }
    this.log.debug({ gvr: key }, 'informer started');
    return entry;
  }

  private emit(
    entry: ManagedInformer,
    type: EventType,
    obj: PartialObjectMetadata | DeletedFinalStateUnknown,
    oldObj?: PartialObjectMetadata,
    isInInitialList = false,
    takeover = false,
    resync = false,
  ): void {
    // A released informer may still be delivering; its events are no one's any more.
    if (this.entries.get(entry.key) !== entry) return;
    try {
      this.onEvent(toWatchEvent(entry.gvr, type, obj, oldObj, isInInitialList, takeover, resync));
    } catch (err) {
      this.log.error({ err, gvr: entry.key, type }, 'onEvent threw; the informer carries on');
    }
  }

  /** On the informer's sync signal (and when a caller finds it synced): resolves the waiting callers. */
  private checkSynced(entry: ManagedInformer): boolean {
    if (this.entries.get(entry.key) !== entry || !entry.informer.hasSynced()) return false;
    entry.synced = true;
    this.failureRules.synced(entry);
    entry.resolveWaiters();
    this.log.debug({ gvr: entry.key }, 'informer synced');
    return true;
  }

  private dropOwner(entry: ManagedInformer, ownerId: string, err: Error): void {
    entry.rejectWaiters(err, ownerId);
    entry.owners.delete(ownerId);
    if (entry.owners.size === 0) return this.stop(entry, err);
    // The last owner wanting full objects left: back to metadata only, so they cost nothing more.
    if (entry.objectOwners.delete(ownerId) && entry.objectOwners.size === 0 && this.entries.get(entry.key) === entry) {
      this.switchTo(entry, undefined);
    }
  }

  private stop(entry: ManagedInformer, err: Error): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    this.failureRules.stopped(entry);
    entry.rejectWaiters(err);
    entry.owners.clear();
    entry.abort.abort();
    this.log.debug({ gvr: entry.key }, 'informer stopped');
  }
}

function checkArgs(gvr: GroupVersionResource, ownerId: string): TypeError | undefined {
  try {
    validateGroupVersionResource(gvr);
  } catch (err) {
    return err as TypeError;
  }
  if (typeof ownerId !== 'string' || ownerId === '') {
    return new TypeError(`ensureWatch(${gvrKey(gvr)}): ownerId must be a non-empty string, got ${JSON.stringify(ownerId)}`);
  }
  return undefined;
}
