import {
  DeletedFinalStateUnknown,
  gvrKey,
  namespacedNameKey,
  realClock,
  type Clock,
  type GroupVersionResource,
  type HandlerRegistration,
  type Informer,
  type InformerHealth,
  type NamespacedName,
  type PartialObjectMetadata,
  type ResourceEventHandler,
} from '../index.js';
import { FakeInformerError } from './FakeInformerError.js';
import { objectName } from './fakeObject.js';

/** Options of a {@link FakeInformer}. */
export interface FakeInformerOptions {
  /** Recorded only: the fake never resyncs by itself (call `resync()`). */
  readonly resyncPeriodMs?: number;
  /** Complete the initial list as soon as `run` is called. Default true. */
  readonly autoSync?: boolean;
  /** What the initial list returns, read when the list completes. Default: nothing. */
  readonly listObjects?: () => readonly PartialObjectMetadata[];
  /** Fail to sync: report this error when run, and never sync. */
  readonly syncError?: Error;
  /** Time source of `health()`'s ages. Default: the real clock. */
  readonly clock?: Clock;
}

/** Options of {@link FakeInformer.delete}. */
export interface FakeDeleteOptions {
  /** Deliver a `DeletedFinalStateUnknown` tombstone, as after a missed watch event. */
  readonly finalStateUnknown?: boolean;
}

class FakeRegistration implements HandlerRegistration {
  synced = false;
  constructor(readonly handler: ResourceEventHandler) {}
  hasSynced(): boolean {
    return this.synced;
  }
}

/**
 * An in-memory {@link Informer} a test drives by hand: `add`/`update`/`delete`
 * deliver events to the handlers at once (synchronously), `markSynced()`
 * completes the initial list, `failSync(err)` reports `err` through the
 * watch error handler and keeps it from syncing.
 *
 * `isInInitialList` is true exactly for adds delivered before the informer
 * synced (the initial list, and a late handler's replay while unsynced).
 *
 * `health()` reports as a real informer would: every error reported through
 * the watch error handler extends the current outage, which ends at the
 * next sync, event, `relisted()` or `recover()`; each of those is also
 * activity from the server (`idleMs` counts from the last one, on `clock`).
 *
 * Easy to get wrong: a stopped informer (its run signal aborted) is dead:
 * pushes to it are ignored, as a real informer no longer watches. Updating
 * or deleting an object the cache does not hold throws.
 */
export class FakeInformer implements Informer {
  readonly gvr: GroupVersionResource;
  readonly resyncPeriodMs: number;
  private readonly store = new Map<string, PartialObjectMetadata>();
  private readonly registrations = new Set<FakeRegistration>();
  private readonly listObjects: () => readonly PartialObjectMetadata[];
  private autoSync: boolean;
  private syncError: Error | undefined;
  private watchErrorHandler: ((err: Error) => void) | undefined;
  private running = false;
  private stopped = false;
  private synced = false;
  private readonly clock: Clock;
  private lastActivityMs: number | undefined;
  private failingSinceMs: number | undefined;
  private failures = 0;
  private relists = 0;
  /** Every error reported through the watch error handler, in order. */
  readonly reportedErrors: Error[] = [];

  constructor(gvr: GroupVersionResource, options: FakeInformerOptions = {}) {
    this.gvr = gvr;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.autoSync = options.autoSync ?? true;
    this.listObjects = options.listObjects ?? (() => []);
    this.syncError = options.syncError;
    this.clock = options.clock ?? realClock;
  }

  run(signal: AbortSignal): void {
    if (this.running || this.stopped) throw new FakeInformerError(`informer of ${gvrKey(this.gvr)} was already run`);
    this.running = true;
    if (signal.aborted) {
      this.stop();
      return;
    }
    signal.addEventListener('abort', () => this.stop(), { once: true });
    if (this.syncError !== undefined) {
      // Like a real list request, the failure arrives after run() has returned.
      queueMicrotask(() => {
        if (this.syncError !== undefined && this.isRunning()) this.reportWatchError(this.syncError);
      });
    } else if (this.autoSync) {
      this.markSynced();
    }
  }

  hasSynced(): boolean {
    return this.synced;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** True between `run` and stop. */
  isRunning(): boolean {
    return this.running && !this.stopped;
  }

  addEventHandler(handler: ResourceEventHandler): HandlerRegistration {
    const reg = new FakeRegistration(handler);
    this.registrations.add(reg);
    // Like a shared informer: a late handler first gets the cache as adds,
    // part of the initial list only while the informer has not synced.
    const initial = !this.synced;
    for (const obj of this.store.values()) handler.onAdd?.(obj, initial);
    reg.synced = this.synced;
    return reg;
  }

  removeEventHandler(registration: HandlerRegistration): void {
    this.registrations.delete(registration as FakeRegistration);
  }

  /** Number of handlers currently added. */
  handlerCount(): number {
    return this.registrations.size;
  }

  /**
   * The handlers currently added, oldest first: to call one directly, e.g.
   * to deliver an event late, after its registration was removed.
   */
  handlers(): ResourceEventHandler[] {
    return [...this.registrations].map((reg) => reg.handler);
  }

  list(): PartialObjectMetadata[] {
    return [...this.store.values()];
  }

  get(key: NamespacedName): PartialObjectMetadata | undefined {
    return this.store.get(namespacedNameKey(key));
  }

  setWatchErrorHandler(fn: (err: Error) => void): void {
    this.watchErrorHandler = fn;
  }

  /**
   * Completes the initial list: caches `listObjects()`, delivers each as an
   * add (`isInInitialList` true) and turns `hasSynced` true. Does nothing
   * once synced or stopped; before `run` it makes `run` sync at once.
   */
  markSynced(): void {
    if (this.synced || this.stopped) return;
    this.syncError = undefined;
    if (!this.running) {
      this.autoSync = true;
      return;
    }
    for (const obj of this.listObjects()) {
      this.store.set(namespacedNameKey(objectName(obj)), obj);
      this.deliver((h) => h.onAdd?.(obj, true));
    }
    this.synced = true;
    for (const reg of this.registrations) reg.synced = true;
    this.recover();
  }

  /**
   * Makes the informer fail to sync: `err` (e.g. `new FakeStatusError(404)`)
   * is reported through the watch error handler now if running, else just
   * after `run` returns (on a microtask, as a failed list request would),
   * and `hasSynced` stays false until `markSynced()`.
   * @throws FakeInformerError once synced: a synced informer cannot unsync.
   */
  failSync(err: Error): void {
    if (this.synced) throw new FakeInformerError(`informer of ${gvrKey(this.gvr)} already synced; it cannot fail to sync`);
    this.syncError = err;
    if (this.isRunning()) this.reportWatchError(err);
  }

  /** Reports a list/watch error through the watch error handler (the informer carries on); it extends the current outage. */
  reportWatchError(err: Error): void {
    this.reportedErrors.push(err);
    this.failingSinceMs ??= this.clock.now();
    this.failures++;
    this.watchErrorHandler?.(err);
  }

  /** The server answered again: the outage, if any, is over. */
  recover(): void {
    this.lastActivityMs = this.clock.now();
    this.failingSinceMs = undefined;
    this.failures = 0;
  }

  /** A relist completed: counted in `health().relists`, and the outage is over. */
  relisted(): void {
    this.relists++;
    this.recover();
  }

  health(): InformerHealth {
    const now = this.clock.now();
    const last = this.reportedErrors.at(-1);
    const status = (last as { status?: unknown } | undefined)?.status;
    const reason = (last as { reason?: unknown } | undefined)?.reason;
    return {
      synced: this.synced,
      idleMs: this.lastActivityMs === undefined ? undefined : now - this.lastActivityMs,
      relists: this.relists,
      failing:
        this.failingSinceMs === undefined || last === undefined
          ? undefined
          : {
              forMs: now - this.failingSinceMs,
              consecutive: this.failures,
              cause: last.message,
              status: typeof status === 'number' ? status : undefined,
              reason: typeof reason === 'string' ? reason : undefined,
              retryInMs: undefined,
            },
    };
  }

  /** Caches `obj` and delivers an add (`isInInitialList` true until synced). */
  add(obj: PartialObjectMetadata): void {
    if (this.stopped) return;
    this.store.set(namespacedNameKey(objectName(obj)), obj);
    const initial = !this.synced;
    this.deliver((h) => h.onAdd?.(obj, initial));
  }

  /** Replaces the cached object and delivers an update (old, new). */
  update(obj: PartialObjectMetadata): void {
    if (this.stopped) return;
    const key = namespacedNameKey(objectName(obj));
    const old = this.store.get(key);
    if (old === undefined) {
      throw new FakeInformerError(`cannot update ${key} in the informer of ${gvrKey(this.gvr)}: not in its cache`);
    }
    this.store.set(key, obj);
    this.deliver((h) => h.onUpdate?.(old, obj));
  }

  /** Removes the object and delivers a delete (optionally as a tombstone). */
  delete(target: NamespacedName | PartialObjectMetadata, options: FakeDeleteOptions = {}): void {
    if (this.stopped) return;
    const key = namespacedNameKey('metadata' in target ? objectName(target) : target);
    const old = this.store.get(key);
    if (old === undefined) {
      throw new FakeInformerError(`cannot delete ${key} from the informer of ${gvrKey(this.gvr)}: not in its cache`);
    }
    this.store.delete(key);
    const delivered = options.finalStateUnknown === true ? new DeletedFinalStateUnknown(key, old) : old;
    this.deliver((h) => h.onDelete?.(delivered));
  }

  /** Delivers every cached object as an update to itself (same object, same resourceVersion), as a periodic resync does. */
  resync(): void {
    if (this.stopped) return;
    for (const obj of this.store.values()) this.deliver((h) => h.onUpdate?.(obj, obj));
  }

  private deliver(call: (h: ResourceEventHandler) => void): void {
    if (this.synced) this.recover();
    for (const reg of [...this.registrations]) call(reg.handler);
  }

  private stop(): void {
    this.stopped = true;
  }
}
