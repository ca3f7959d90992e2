import {
  gvrKey,
  type EventHandler,
  type GroupVersionResource,
  type Informer,
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

interface Watch {
  readonly informer: FakeInformer;
  readonly abort: AbortController;
  readonly owners: Set<string>;
}

/**
 * A {@link WatchManager} without informer plumbing, for testing an event
 * watch coordinator or a controller layer in isolation: it records `ensureWatch` and
 * `releaseWatch` calls and owners per GVR, syncs at once (unless told to
 * fail with {@link failEnsure}), and delivers only what a test passes to
 * {@link emit}.
 *
 * Easy to get wrong: objects pushed to its informers produce no events
 * (those informers only serve `getInformer(gvr).list()`); use `emit`.
 */
export class FakeWatchManager implements WatchManager {
  readonly calls: WatchManagerCall[] = [];
  private readonly watches = new Map<string, Watch>();
  private readonly failures = new Map<string, Error>();
  private stopped = false;

  constructor(private readonly onEvent: EventHandler = () => {}) {}

  ensureWatch(gvr: GroupVersionResource, ownerId: string): Promise<void> {
    this.calls.push({ op: 'ensure', gvr, ownerId });
    const key = gvrKey(gvr);
    if (this.stopped) return Promise.reject(new FakeInformerError(`cannot watch ${key}: the watch manager is shut down`));
    const failure = this.failures.get(key);
    if (failure !== undefined) {
      return Promise.reject(new FakeInformerError(`cannot watch ${key}: ${failure.message}`, { cause: failure }));
    }
    let watch = this.watches.get(key);
    if (watch === undefined) {
      watch = { informer: new FakeInformer(gvr), abort: new AbortController(), owners: new Set() };
      watch.informer.run(watch.abort.signal);
      this.watches.set(key, watch);
    }
    watch.owners.add(ownerId);
    return Promise.resolve();
  }

  releaseWatch(gvr: GroupVersionResource, ownerId: string): void {
    this.calls.push({ op: 'release', gvr, ownerId });
    const key = gvrKey(gvr);
    const watch = this.watches.get(key);
    if (watch === undefined || !watch.owners.delete(ownerId) || watch.owners.size > 0) return;
    watch.abort.abort();
    this.watches.delete(key);
  }

  getInformer(gvr: GroupVersionResource): Informer | undefined {
    return this.watches.get(gvrKey(gvr))?.informer;
  }

  activeWatchCount(): number {
    return this.watches.size;
  }

  shutdown(): void {
    this.stopped = true;
    for (const watch of this.watches.values()) watch.abort.abort();
    this.watches.clear();
  }

  /** True once {@link shutdown} was called. */
  isShutDown(): boolean {
    return this.stopped;
  }

  /** The owners currently holding `gvr`, in the order they first asked. */
  owners(gvr: GroupVersionResource): string[] {
    return [...(this.watches.get(gvrKey(gvr))?.owners ?? [])];
  }

  /** Makes `ensureWatch(gvr, ...)` reject with `err` as cause; `undefined` lifts it. */
  failEnsure(gvr: GroupVersionResource, err: Error | undefined): void {
    if (err === undefined) this.failures.delete(gvrKey(gvr));
    else this.failures.set(gvrKey(gvr), err);
  }

  /** Delivers `event` to the watch manager's `onEvent`, as an informer event would. */
  emit(event: WatchEvent): void {
    this.onEvent(event);
  }
}
