import {
  gvrKey,
  type CachedObject,
  type ObjectCacheOptions,
  type GroupVersionResource,
  type ListWatch,
  type ListWatchSink,
  type NamespacedName,
  type PartialObjectMetadata,
} from '../index.js';
import { objectTransformOf } from '../internal.js';
import { fakeObject } from './fakeObject.js';
import { FakeInformerError } from './FakeInformerError.js';

/** Options of a {@link FakeListWatch}. */
export interface FakeListWatchOptions {
  /** Deliver the initial list as soon as `run` is called. Default true. */
  readonly autoSync?: boolean;
  /** What every list returns, read when the list is delivered. Default: nothing. */
  readonly listObjects?: () => readonly PartialObjectMetadata[];
  /** Fail to sync: report this error when run, and deliver no list. */
  readonly syncError?: Error;
  /**
   * Deliver full objects, through core's `stripObject` and this transform
   * (each object a copy), as a Kubernetes source asked for full objects
   * does. Default: metadata only (type and metadata of each object).
   */
  readonly objects?: ObjectCacheOptions;
}

/** Options of {@link FakeListWatch.delete}. */
export interface FakeDeleteOptions {
  /**
   * The delete is missed and found by a relist instead, as after a broken
   * watch: the informer delivers a `DeletedFinalStateUnknown` tombstone.
   */
  readonly finalStateUnknown?: boolean;
}

/**
 * A {@link ListWatch} a test drives by hand, for the real informer engine
 * to run on: `markSynced()` delivers the initial list, `add`/`update`/
 * `delete` deliver watch events, `relisted()` delivers a new complete list,
 * `failSync(err)` and `reportWatchError(err)` report failed requests.
 * Everything reaches the sink synchronously.
 *
 * It keeps no cache (the engine does): what a list returns comes from
 * `listObjects` (in a `FakeInformerSource`, the fake cluster's objects).
 *
 * Easy to get wrong: a stopped source (its run signal aborted) is dead:
 * pushes to it are ignored, as a real one no longer watches. Before its
 * first list it delivers no events (a real informer only watches after
 * listing): `add` and friends are dropped until `markSynced()`.
 */
export class FakeListWatch implements ListWatch {
  readonly gvr: GroupVersionResource;
  /** Every error reported to the sink, in order. */
  readonly reportedErrors: Error[] = [];
  /** What it delivers: full objects (asked for with `objects`) or metadata only. */
  readonly holdsObjects: boolean;
  readonly delivers: 'metadata' | 'objects';
  private readonly listObjects: () => readonly PartialObjectMetadata[];
  private readonly shape: (obj: PartialObjectMetadata) => PartialObjectMetadata;
  private autoSync: boolean;
  private syncError: Error | undefined;
  private sink: ListWatchSink | undefined;
  private running = false;
  private stopped = false;
  private listed = false;

  constructor(gvr: GroupVersionResource, options: FakeListWatchOptions = {}) {
    this.gvr = gvr;
    this.autoSync = options.autoSync ?? true;
    this.listObjects = options.listObjects ?? (() => []);
    this.syncError = options.syncError;
    this.holdsObjects = options.objects !== undefined;
    this.delivers = this.holdsObjects ? 'objects' : 'metadata';
    // Frozen, deep: a handler that changes an object it read from the cache fails at that line in a test, instead of
    // changing what later passes (and explain()) see.
    if (options.objects === undefined) {
      this.shape = (obj) => deepFreeze(structuredClone(metadataOnly(obj)));
    } else {
      const transform = objectTransformOf(options.objects);
      this.shape = (obj) => deepFreeze(transform(structuredClone(obj) as CachedObject));
    }
  }

  run(sink: ListWatchSink, signal: AbortSignal): void {
    if (this.running || this.stopped) throw new FakeInformerError(`list/watch of ${gvrKey(this.gvr)} was already run`);
    this.running = true;
    this.sink = sink;
    if (signal.aborted) {
      this.stopped = true;
      return;
    }
    signal.addEventListener('abort', () => (this.stopped = true), { once: true });
    if (this.syncError !== undefined) {
      // Like a real list request, the failure arrives after run() has returned.
      queueMicrotask(() => {
        if (this.syncError !== undefined && this.isRunning()) this.reportWatchError(this.syncError);
      });
    } else if (this.autoSync) {
      this.markSynced();
    }
  }

  /** True once its first list was delivered. */
  hasSynced(): boolean {
    return this.listed;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** True between `run` and stop. */
  isRunning(): boolean {
    return this.running && !this.stopped;
  }

  /**
   * Delivers the initial list (`listObjects()`). Does nothing once listed
   * or stopped; before `run` it makes `run` list at once.
   */
  markSynced(): void {
    if (this.listed || this.stopped) return;
    this.syncError = undefined;
    if (!this.running) {
      this.autoSync = true;
      return;
    }
    this.listed = true;
    this.sink!.replace(this.listObjects().map(this.shape));
  }

  /**
   * Makes the source fail to list: `err` (e.g. `new FakeStatusError(404)`)
   * is reported now if running, else just after `run` returns (on a
   * microtask, as a failed list request would), and no list is delivered
   * until `markSynced()`.
   * @throws FakeInformerError once listed: a synced informer cannot unsync.
   */
  failSync(err: Error): void {
    if (this.listed) throw new FakeInformerError(`informer of ${gvrKey(this.gvr)} already synced; it cannot fail to sync`);
    this.syncError = err;
    if (this.isRunning()) this.reportWatchError(err);
  }

  /** Reports a failed list or watch request to the sink (the source carries on); it extends the current outage. */
  reportWatchError(err: Error): void {
    if (this.stopped) return;
    this.reportedErrors.push(err);
    this.sink?.failed(err);
  }

  /** The server answered again with nothing new (a bookmark): the outage, if any, is over. */
  recover(): void {
    if (this.isRunning()) this.sink!.progressed();
  }

  /** Delivers a new complete list (`listObjects()`), as after a 410 or a reconnect; the engine tells handlers what changed. */
  relisted(): void {
    if (this.isRunning() && this.listed) this.sink!.replace(this.listObjects().map(this.shape));
  }

  /** Delivers a watch event: the object was created. */
  add(obj: PartialObjectMetadata): void {
    if (this.isRunning() && this.listed) this.sink!.upsert(this.shape(obj));
  }

  /** Delivers a watch event: the object changed. */
  update(obj: PartialObjectMetadata): void {
    this.add(obj);
  }

  /**
   * Delivers the deletion of `target`, as a watch event, or with
   * `finalStateUnknown` as a relist that no longer holds it (the object
   * must already be gone from `listObjects()`).
   */
  delete(target: NamespacedName | PartialObjectMetadata, options: FakeDeleteOptions = {}): void {
    if (!this.isRunning() || !this.listed) return;
    if (options.finalStateUnknown === true) return this.relisted();
    // A watch's DELETED event carries the object: the one cached, when only a name is given.
    const obj =
      'metadata' in target
        ? this.shape(target)
        : (this.sink!.cache.get(target) ?? fakeObject({ name: target.name, namespace: target.namespace }));
    this.sink!.remove(obj);
  }
}

/** What a metadata-only watch sends of `obj`: its type and metadata (the object itself when that is all it has). */
/** Freezes `value` and everything it holds; returns it. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  return value;
}

function metadataOnly(obj: PartialObjectMetadata): PartialObjectMetadata {
  if (Object.keys(obj).length <= 3) return obj;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: obj.metadata };
}
