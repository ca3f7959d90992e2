import {
  gvrKey,
  type EventHandler,
  type GroupVersionResource,
  type InformerCache,
  type KindUnavailableError,
  type WatchEvent,
  type WatchManager,
} from '../index.js';
import { FakeInformer } from './FakeInformer.js';
import { FakeInformerError } from './FakeInformerError.js';

/** One recorded call of a {@link FakeWatchManager}. */
export interface WatchManagerCall {
  readonly op: 'ensure' | 'release';
  readonly gvr: GroupVersionResource;
  readonly ownerId: string;
}

/** Options of a {@link FakeWatchManager}. */
export interface FakeWatchManagerOptions {
  /** Receives what a test passes to {@link FakeWatchManager.emit}. Default: nothing. */
  readonly onEvent?: EventHandler;
  /**
   * `auto` (default): every `ensureWatch` resolves at once. `manual`: each
   * one waits until the test settles it with
   * {@link FakeWatchManager.resolveSync} or {@link FakeWatchManager.rejectSync}.
   */
  readonly sync?: 'auto' | 'manual';
}

interface Watch {
  readonly informer: FakeInformer;
  readonly owners: Set<string>;
}

interface PendingSync {
  readonly key: string;
  readonly ownerId: string;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

/**
 * A {@link WatchManager} without informer plumbing, for testing a watch
 * coordinator or a controller layer in isolation. It has the owner-set
 * semantics of `InformerWatchManager`: `ensureWatch` adds the owner at once,
 * a failed sync drops only that owner, and a GVR's informer runs while any
 * owner remains. It records every `ensureWatch` and `releaseWatch` call,
 * and delivers only what a test passes to {@link emit}.
 *
 * Syncs succeed at once (`sync: 'auto'`, the default) or wait for
 * {@link resolveSync}/{@link rejectSync} (`sync: 'manual'`). To make them
 * fail: {@link failEnsure} refuses a GVR until lifted, {@link failNext}
 * fails the next sync of a GVR once.
 *
 * Easy to get wrong: objects pushed to its informers produce no events
 * (those informers only serve `getInformer(gvr).list()`); use `emit`. And
 * `anomalies` collects contract breaches by the caller (releasing a GVR it
 * does not own); tests should assert it stays empty.
 */
export class FakeWatchManager implements WatchManager {
  readonly calls: WatchManagerCall[] = [];
  /** Contract breaches by the caller, e.g. `release of apps/v1/deployments by non-owner x`. */
  readonly anomalies: string[] = [];
  private readonly onEvent: EventHandler;
  private readonly sync: 'auto' | 'manual';
  private readonly watches = new Map<string, Watch>();
  private readonly failures = new Map<string, Error>();
  private readonly planned = new Map<string, Error>();
  private readonly pending: PendingSync[] = [];
  /** GVR key -> the `whenAvailable` waits not ended yet. */
  private readonly availabilityWaits = new Map<string, Set<() => void>>();
  private stopped = false;

  /** Takes the options, or just the `onEvent` handler. */
  constructor(options: FakeWatchManagerOptions | EventHandler = {}) {
    const opts = typeof options === 'function' ? { onEvent: options } : options;
    this.onEvent = opts.onEvent ?? (() => {});
    this.sync = opts.sync ?? 'auto';
  }

  ensureWatch(gvr: GroupVersionResource, ownerId: string): Promise<void> {
    this.calls.push({ op: 'ensure', gvr, ownerId });
    const key = gvrKey(gvr);
    if (this.stopped) return Promise.reject(shutDownError(key));
    const failure = this.failures.get(key);
    if (failure !== undefined) {
      return Promise.reject(new FakeInformerError(`cannot watch ${key}: ${failure.message}`, { cause: failure }));
    }
    this.watchOf(gvr, key).owners.add(ownerId);
    const planned = this.planned.get(key);
    if (planned !== undefined) {
      this.planned.delete(key);
      return Promise.resolve().then(() => {
        this.drop(key, ownerId);
        throw planned;
      });
    }
    if (this.sync === 'auto') return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.pending.push({
        key,
        ownerId,
        resolve,
        reject: (err) => {
          this.drop(key, ownerId);
          reject(err);
        },
      });
    });
  }

  /**
   * Resolves when the test calls {@link announceAvailable} for the refused
   * GVR, when `signal` aborts, or at {@link shutdown}. Not recorded in {@link calls}.
   */
  whenAvailable(refusal: KindUnavailableError, signal: AbortSignal): Promise<void> {
    const key = gvrKey(refusal.gvr);
    return new Promise<void>((resolve) => {
      if (this.stopped || signal.aborted) return resolve();
      let waits = this.availabilityWaits.get(key);
      if (waits === undefined) this.availabilityWaits.set(key, (waits = new Set()));
      const done = (): void => {
        waits.delete(done);
        if (waits.size === 0 && this.availabilityWaits.get(key) === waits) this.availabilityWaits.delete(key);
        signal.removeEventListener('abort', done);
        resolve();
      };
      waits.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Ends every `whenAvailable` wait for `gvr`: the kind may be available again. */
  announceAvailable(gvr: GroupVersionResource): void {
    for (const done of [...(this.availabilityWaits.get(gvrKey(gvr)) ?? [])]) done();
  }

  /** How many `whenAvailable` waits for `gvr` have not ended. */
  availabilityWaitsFor(gvr: GroupVersionResource): number {
    return this.availabilityWaits.get(gvrKey(gvr))?.size ?? 0;
  }

  releaseWatch(gvr: GroupVersionResource, ownerId: string): void {
    this.calls.push({ op: 'release', gvr, ownerId });
    const key = gvrKey(gvr);
    if (this.watches.get(key)?.owners.has(ownerId) !== true) {
      // After shutdown nobody owns anything; a late release is no breach.
      if (!this.stopped) this.anomalies.push(`release of ${key} by non-owner ${ownerId}`);
      return;
    }
    this.drop(key, ownerId);
  }

  getInformer(gvr: GroupVersionResource): InformerCache | undefined {
    return this.watches.get(gvrKey(gvr))?.informer;
  }

  /** Number of GVRs with at least one owner, syncing or synced (a running informer in `InformerWatchManager`). */
  activeWatchCount(): number {
    return this.watches.size;
  }

  /** Stops every informer, rejects the syncs still waiting, and makes later `ensureWatch` calls reject. */
  shutdown(): void {
    this.stopped = true;
    this.watches.clear();
    for (const waits of [...this.availabilityWaits.values()]) for (const done of [...waits]) done();
    for (const p of this.pending.splice(0)) p.reject(shutDownError(p.key));
  }

  /** True once {@link shutdown} was called. */
  isShutDown(): boolean {
    return this.stopped;
  }

  /** The owners currently holding `gvr`, in the order they first asked. */
  owners(gvr: GroupVersionResource): string[] {
    return [...(this.watches.get(gvrKey(gvr))?.owners ?? [])];
  }

  /** True while `ownerId` (any owner when omitted) holds `gvr`, syncing or synced. */
  isWatching(gvr: GroupVersionResource, ownerId?: string): boolean {
    const owners = this.watches.get(gvrKey(gvr))?.owners;
    if (owners === undefined) return false;
    return ownerId === undefined || owners.has(ownerId);
  }

  /**
   * Makes every `ensureWatch(gvr, ...)` reject at once, with a
   * {@link FakeInformerError} naming the GVR and `err` as cause, holding
   * nothing; `undefined` lifts it.
   */
  failEnsure(gvr: GroupVersionResource, err: Error | undefined): void {
    if (err === undefined) this.failures.delete(gvrKey(gvr));
    else this.failures.set(gvrKey(gvr), err);
  }

  /**
   * Makes the next `ensureWatch` of `gvr` fail its sync with `err` itself
   * (in both sync modes): the owner is added, then dropped on a microtask
   * as the promise rejects, as `InformerWatchManager` does.
   */
  failNext(gvr: GroupVersionResource, err: Error): void {
    this.planned.set(gvrKey(gvr), err);
  }

  /** Number of syncs waiting in `manual` mode, for one GVR when given. */
  pendingSyncs(gvr?: GroupVersionResource): number {
    const key = gvr === undefined ? undefined : gvrKey(gvr);
    return this.pending.filter((p) => key === undefined || p.key === key).length;
  }

  /**
   * Completes the oldest waiting sync of `gvr` (its informer turns synced).
   * @throws FakeInformerError when no sync of `gvr` is waiting.
   */
  resolveSync(gvr: GroupVersionResource): void {
    const p = this.take(gvr);
    this.watches.get(p.key)?.informer.markSynced();
    p.resolve();
  }

  /**
   * Fails the oldest waiting sync of `gvr` with `err`; its owner is dropped
   * as `InformerWatchManager` drops it.
   * @throws FakeInformerError when no sync of `gvr` is waiting.
   */
  rejectSync(gvr: GroupVersionResource, err: Error): void {
    this.take(gvr).reject(err);
  }

  /** Number of recorded calls of one kind, for one GVR when given. */
  count(op: WatchManagerCall['op'], gvr?: GroupVersionResource): number {
    const key = gvr === undefined ? undefined : gvrKey(gvr);
    return this.calls.filter((c) => c.op === op && (key === undefined || gvrKey(c.gvr) === key)).length;
  }

  /** Delivers `event` to the watch manager's `onEvent`, as an informer event would. */
  emit(event: WatchEvent): void {
    this.onEvent(event);
  }

  private watchOf(gvr: GroupVersionResource, key: string): Watch {
    let watch = this.watches.get(key);
    if (watch === undefined) {
      watch = { informer: new FakeInformer(gvr, { synced: this.sync === 'auto' }), owners: new Set() };
      this.watches.set(key, watch);
    }
    return watch;
  }

  private take(gvr: GroupVersionResource): PendingSync {
    const key = gvrKey(gvr);
    const i = this.pending.findIndex((p) => p.key === key);
    if (i < 0) throw new FakeInformerError(`no sync of ${key} is waiting`);
    return this.pending.splice(i, 1)[0]!;
  }

  private drop(key: string, ownerId: string): void {
    const watch = this.watches.get(key);
    if (watch === undefined || !watch.owners.delete(ownerId) || watch.owners.size > 0) return;
    this.watches.delete(key);
  }
}

function shutDownError(key: string): FakeInformerError {
  return new FakeInformerError(`cannot watch ${key}: the watch manager is shut down`);
}
