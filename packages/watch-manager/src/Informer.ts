import {
  gvrKey,
  realClock,
  silentLogger,
  type CachedObject,
  type Clock,
  type DeletedFinalStateUnknown,
  type IndexFunc,
  type GroupVersionResource,
  type InformerCache,
  type InformerHealth,
  type ListWatch,
  type ListWatchSink,
  type Logger,
  type NamespacedName,
  type PartialObjectMetadata,
  type ResourceEventHandler,
  type TimerHandle,
} from '@protean/core';
import { wasChecked } from '@protean/core/internal';
import { deliverRelist, type RelistListener } from './deliverRelist.js';
import { byOwner, NAMESPACE_INDEX, ObjectIndexes, OWNER_INDEX } from './ObjectIndexes.js';
import { objectsNotDelivered } from './WatchError.js';
import { MetadataStore } from './MetadataStore.js';

/**
 * What an {@link Informer} tells its one listener: each change of its cache,
 * the first sync, each failure. `onUpdate`'s `resync` is the engine's own
 * word that the update replays the cache (true only then), never a guess
 * from the objects.
 */
export interface InformerListener extends ResourceEventHandler {
  /** The first complete list is in the cache and was delivered as adds. Called once. */
  onSynced?(): void;
  /** A list or watch request failed; the source keeps retrying. */
  onError?(err: Error): void;
  /** The source given to `switchSource` listed, and its list replaced the cache. */
  onSourceSwitched?(): void;
}

/** Options of an {@link Informer}. */
export interface InformerOptions {
  /**
   * How often the cache is replayed to the listener as updates to itself
   * (`onUpdate(obj, obj, true)`); 0 (default) disables resync. A finite
   * number >= 0, or the constructor throws a `RangeError`.
   */
  readonly resyncPeriodMs?: number;
  /** Paces resync and the health ages. Default: the real clock. */
  readonly clock?: Clock;
  /** Where a throwing listener is logged. Default: silent. */
  readonly logger?: Logger;
  /** The source delivers full objects (see `holdsObjects`). Default false. */
  readonly holdsObjects?: boolean;
}

/** One list/watch feeding the engine: the current one, or one switched to that has not listed yet. */
interface Feed {
  readonly source: ListWatch;
  readonly abort: AbortController;
  /** It delivers full objects: asked for, and not found to deliver metadata only. */
  holdsObjects: boolean;
  /** Asked for full objects without saying what it delivers: its first object is looked at. */
  checkFirst: boolean;
  /** No longer feeding: its sink calls are ignored. */
  retired: boolean;
  /** Not current yet: the list it streams, which replaces the cache when complete. */
  pending: MetadataStore | undefined;
}

/** Error of a second `run` call. */
class InformerStateError extends Error {
  override readonly name = 'InformerStateError';
}

/**
 * The informer engine: one GVR's metadata cache, fed by a {@link ListWatch}
 * through its sink, and told to one {@link InformerListener}. It holds what
 * every source would otherwise re-implement: the cache, the relist diff
 * (objects gone from a new list are deleted as `DeletedFinalStateUnknown`
 * tombstones; unchanged ones produce nothing), the initial-list flag,
 * resync, the sync signal and health (from the sink calls, or the source's
 * own report where it has one).
 *
 * Easy to get wrong: events reach the listener synchronously inside the
 * sink call, after the cache changed, so a listener reading the cache sees
 * the new state. Once the run signal aborts, sink calls change nothing.
 */
export class Informer implements InformerCache {
  readonly gvr: GroupVersionResource;
  private store = new MetadataStore();
  /** Secondary indexes over the live cache, once one was asked for. */
  private indexes: ObjectIndexes | undefined;
  /** A streamed list in progress: the next state, committed at `endList`. */
  private next: MetadataStore | undefined;
  private synced = false;
  /** A relist of a share taken over is being delivered: its adds are flagged `takeover`. */
  private takingOver = false;
  private running = false;
  private stopped = false;
  private lists = 0;
  private resyncTimer: TimerHandle | undefined;
  private readonly resyncPeriodMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** The list/watch whose events change the cache. */
  private feed: Feed;
  /** A list/watch switched to that has not listed yet. */
  private nextFeed: Feed | undefined;
  /** The resourceVersion of the last watch event applied: where a switched-to source lists from. */
  private lastVersion: string | undefined;
  /** Health from the sink calls, for sources without their own report. */
  private judged: boolean;
  private lastHeardMs: number | undefined;
  private failingSinceMs: number | undefined;
  private failures = 0;
  private lastFailure: Error | undefined;

  constructor(
    source: ListWatch,
    private readonly listener: InformerListener,
    options: InformerOptions = {},
  ) {
    this.feed = newFeed(source, options.holdsObjects ?? false);
    this.gvr = source.gvr;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    // Options an InformerWatchManager built were checked where its settings entered.
    if (!wasChecked(options) && !(this.resyncPeriodMs >= 0 && Number.isFinite(this.resyncPeriodMs))) {
      throw new RangeError(`Informer: resyncPeriodMs must be a finite number >= 0, got ${String(this.resyncPeriodMs)}`);
    }
    this.clock = options.clock ?? realClock;
    this.log = (options.logger ?? silentLogger()).child({ component: 'informer', gvr: gvrKey(source.gvr) });
    this.judged = typeof source.health !== 'function';
  }

  /** Runs the source into this cache until `signal` aborts; returns at once. Called once. */
  run(signal: AbortSignal): void {
    if (this.running) throw new InformerStateError(`informer of ${gvrKey(this.gvr)} was already run; create a new one`);
    this.running = true;
    if (signal.aborted) {
      this.stop();
      return;
    }
    signal.addEventListener('abort', () => this.stop(), { once: true });
    this.feed.source.run(this.sinkFor(this.feed), this.feed.abort.signal);
  }

  /**
   * Replaces the list/watch: `source` runs at once, the current one keeps
   * feeding the cache until `source`'s first list is complete, which then
   * replaces the cache as a relist (objects whose resourceVersion did not
   * change are replaced silently, so a switch from metadata to full
   * objects delivers no events for them) and `onSourceSwitched` is called.
   * Before the first sync it takes over at once. A switch still listing is
   * dropped by the next one. `holdsObjects`: `source` delivers full objects.
   */
  switchSource(source: ListWatch, holdsObjects: boolean): void {
    if (!this.running || this.stopped) throw new InformerStateError(`informer of ${gvrKey(this.gvr)} is not running`);
    const feed = newFeed(source, holdsObjects);
    this.retire(this.nextFeed);
    this.nextFeed = undefined;
    if (!this.synced) {
      this.retire(this.feed);
      this.next = undefined;
      this.adopt(feed);
    } else {
      this.nextFeed = feed;
    }
    source.run(this.sinkFor(feed), feed.abort.signal);
  }

  /** True while a source given to `switchSource` has not listed yet (the current one still feeds the cache). */
  isSwitching(): boolean {
    return this.nextFeed !== undefined;
  }

  /** True when the current source delivers full objects (asked for with `holdsObjects`). */
  holdsObjects(): boolean {
    return this.feed.holdsObjects;
  }

  /** The resourceVersion of the last watch event applied (a switched-to source lists a state not older than it). */
  lastEventResourceVersion(): string | undefined {
    return this.lastVersion;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** True once its run signal aborted. */
  isStopped(): boolean {
    return this.stopped;
  }

  list(namespace?: string): PartialObjectMetadata[] {
    return namespace === undefined ? this.store.list() : this.store.listNamespace(namespace);
  }

  /**
   * Indexes the cache by `fn` under `name` from now on (built at once from
   * what it holds); false, changing nothing, when `name` is indexed by
   * another function already.
   */
  defineIndex(name: string, fn: IndexFunc): boolean {
    this.indexes ??= new ObjectIndexes();
    const current = this.indexFuncOf(name);
    if (current !== undefined) return current === fn;
    this.indexes.define(name, fn, this.store.values());
    if (!this.store.isAttached()) this.store.attach(this.indexes, true);
    return true;
  }

  /** The function `name` is indexed by, if it is (the built-in `owner` only once built). */
  indexFuncOf(name: string): IndexFunc | undefined {
    return this.indexes?.has(name) === true ? this.indexes.funcOf(name) : undefined;
  }

  /**
   * The cached objects `index` files under `value` (`owner`, built in, is
   * built on first use; `namespace` is the cache's own layout); undefined
   * when not indexed.
   */
  byIndex(index: string, value: string): PartialObjectMetadata[] | undefined {
    // The cache is kept by namespace: that index is the cache itself.
    if (index === NAMESPACE_INDEX) return this.store.listNamespace(value);
    if (this.indexes?.has(index) !== true) {
      if (index !== OWNER_INDEX) return undefined;
      this.defineIndex(OWNER_INDEX, byOwner);
    }
    return this.indexes!.get(index, value);
  }

  /** The values `index` files `obj` under; undefined when not indexed (and not `owner`). */
  indexValues(index: string, obj: CachedObject): readonly string[] | undefined {
    if (index === NAMESPACE_INDEX) return [obj.metadata.namespace ?? ''];
    return (this.indexes?.funcOf(index) ?? (index === OWNER_INDEX ? byOwner : undefined))?.(obj);
  }

  get(key: NamespacedName): PartialObjectMetadata | undefined {
    return this.store.get(key.namespace, key.name);
  }

  /** Synced and relists from the engine; idle time, the outage and the list mode from the source's report, else from the sink calls. */
  health(): InformerHealth {
    const relists = Math.max(0, this.lists - 1);
    const wire = this.feed.source.health?.();
    if (wire !== undefined) return { synced: this.synced, relists, ...wire };
    const now = this.clock.now();
    const err = this.lastFailure;
    const status = (err as { status?: unknown } | undefined)?.status;
    const reason = (err as { reason?: unknown } | undefined)?.reason;
    return {
      synced: this.synced,
      idleMs: this.lastHeardMs === undefined ? undefined : Math.max(0, now - this.lastHeardMs),
      relists,
      failing:
        this.failingSinceMs === undefined || err === undefined
          ? undefined
          : {
              forMs: now - this.failingSinceMs,
              consecutive: this.failures,
              cause: err.message,
              status: typeof status === 'number' ? status : undefined,
              reason: typeof reason === 'string' ? reason : undefined,
              retryInMs: undefined,
            },
    };
  }

  /**
   * The sink handed to a feed's source: every call is ignored once the
   * informer stopped or the feed retired; a feed not current yet builds
   * its first list aside ({@link Feed.pending}) and becomes current with it.
   */
  private sinkFor(feed: Feed): ListWatchSink {
    return {
      cache: this,
      replace: (objects, reason) => {
        if (this.stopped || feed.retired) return;
        const next = new MetadataStore();
        for (const obj of objects) {
          if (feed.checkFirst) this.checkDelivery(feed, obj);
          next.set(obj);
        }
        if (feed !== this.feed) return this.promote(feed, next);
        this.next = undefined;
        this.commit(next, false, reason === 'takeover');
      },
      beginList: () => {
        // Not contact with the server: a source may begin a list before its request is answered.
        if (this.stopped || feed.retired) return;
        if (feed === this.feed) this.next = new MetadataStore();
        else feed.pending = new MetadataStore();
      },
      endList: () => {
        if (this.stopped || feed.retired) return;
        if (feed !== this.feed) {
          const pending = feed.pending;
          feed.pending = undefined;
          if (pending !== undefined) this.promote(feed, pending);
          return;
        }
        const next = this.next;
        if (next === undefined) return;
        this.next = undefined;
        this.commit(next, false);
      },
      upsert: (obj) => {
        if (this.stopped || feed.retired) return;
        if (feed.checkFirst) this.checkDelivery(feed, obj);
        if (feed !== this.feed) {
          feed.pending?.set(obj);
          return;
        }
        if (this.judged) this.heard();
        if (this.next !== undefined) {
          this.next.set(obj);
          return;
        }
        this.lastVersion = obj.metadata.resourceVersion;
        const old = this.store.set(obj);
        // Inlined rather than through `added`/`updated`: this is the event path.
        try {
          if (old === undefined) this.listener.onAdd?.(obj, false);
          else this.listener.onUpdate?.(old, obj, false);
        } catch (err) {
          this.listenerThrew(err, old === undefined ? 'onAdd' : 'onUpdate');
        }
      },
      remove: (obj) => {
        if (this.stopped || feed.retired) return;
        const ns = obj.metadata.namespace ?? '';
        if (feed !== this.feed) {
          feed.pending?.delete(ns, obj.metadata.name);
          return;
        }
        if (this.judged) this.heard();
        if (this.next !== undefined) {
          this.next.delete(ns, obj.metadata.name);
          return;
        }
        this.lastVersion = obj.metadata.resourceVersion;
        this.store.delete(ns, obj.metadata.name);
        this.deleted(obj);
      },
      retain: (keep) => {
        if (this.stopped || feed.retired) return;
        const next = feed === this.feed ? this.next : feed.pending;
        if (next !== undefined) {
          for (const obj of next.list()) if (!keep(obj)) next.delete(obj.metadata.namespace ?? '', obj.metadata.name);
        }
        if (feed !== this.feed) return;
        for (const obj of this.store.list()) {
          if (keep(obj)) continue;
          this.store.delete(obj.metadata.namespace ?? '', obj.metadata.name);
          this.deleted(obj);
        }
      },
      progressed: () => {
        if (!this.stopped && feed === this.feed) this.heard();
      },
      failed: (err) => {
        if (this.stopped || feed.retired) return;
        // A list cut off by the failure is never completed: the source lists again with `beginList` or `replace`.
        if (feed !== this.feed) feed.pending = undefined;
        else {
          this.next = undefined;
          if (this.judged) {
            this.failingSinceMs ??= this.clock.now();
            this.failures++;
            this.lastFailure = err;
          }
        }
        try {
          this.listener.onError?.(err);
        } catch (listenerErr) {
          this.log.error({ err: listenerErr }, 'informer error listener threw');
        }
      },
    };
  }

  /**
   * The first object of a feed asked for full objects that did not say what
   * it delivers: a `PartialObjectMetadata` means metadata only, so the feed
   * does not hold objects, and the listener hears why (a `WatchError`,
   * `ObjectsNotDelivered`).
   */
  private checkDelivery(feed: Feed, obj: PartialObjectMetadata): void {
    feed.checkFirst = false;
    // What a metadata request returns: that kind, and nothing beside type and metadata.
    if (obj.kind !== 'PartialObjectMetadata' || Object.keys(obj).some((k) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata'))
      return;
    feed.holdsObjects = false;
    const err = objectsNotDelivered(this.gvr, 'its first object is a PartialObjectMetadata');
    // After the call that delivered it returns: a source may deliver from within `run`, while whoever switched to it
    // is still setting up.
    queueMicrotask(() => {
      if (this.stopped || feed.retired) return;
      try {
        this.listener.onError?.(err);
      } catch (listenerErr) {
        this.log.error({ err: listenerErr }, 'informer error listener threw');
      }
    });
  }

  /** A switched-to feed listed: it becomes current, and its list replaces the cache. */
  private promote(feed: Feed, list: MetadataStore): void {
    this.retire(this.feed);
    this.nextFeed = undefined;
    this.next = undefined;
    this.adopt(feed);
    this.commit(list, true);
    try {
      this.listener.onSourceSwitched?.();
    } catch (err) {
      this.log.error({ err }, 'informer switch listener threw');
    }
  }

  private adopt(feed: Feed): void {
    this.feed = feed;
    this.judged = typeof feed.source.health !== 'function';
  }

  private retire(feed: Feed | undefined): void {
    if (feed === undefined) return;
    feed.retired = true;
    feed.pending = undefined;
    feed.abort.abort();
  }

  /**
   * A complete list becomes the cache: the initial adds and the sync signal
   * the first time, the relist diff after (`switched`: unchanged objects
   * are the new source's, as after a switch to full objects).
   */
  private commit(next: MetadataStore, switched: boolean, takeover = false): void {
    this.lists++;
    this.heard();
    const prev = this.store;
    this.store = next;
    prev.attach(undefined);
    next.attach(this.indexes);
    if (this.synced) {
      this.takingOver = takeover;
      try {
        deliverRelist(prev, next, this.relist, switched);
      } finally {
        this.takingOver = false;
      }
      return;
    }
    for (const obj of next.values()) this.added(obj, true);
    this.synced = true;
    this.scheduleResync();
    try {
      this.listener.onSynced?.();
    } catch (err) {
      this.log.error({ err }, 'informer sync listener threw');
    }
  }

  /** Where the relist diff delivers. */
  private readonly relist: RelistListener = {
    added: (obj) => this.added(obj, false, this.takingOver),
    updated: (oldObj, newObj) => this.updated(oldObj, newObj, false),
    deleted: (obj) => this.deleted(obj),
  };

  /** Activity from the server: it answered, so an outage, if any, is over. */
  private heard(): void {
    if (!this.judged) return;
    this.lastHeardMs = this.clock.now();
    this.failingSinceMs = undefined;
    this.failures = 0;
    this.lastFailure = undefined;
  }

  private added(obj: PartialObjectMetadata, isInInitialList: boolean, takeover = false): void {
    try {
      this.listener.onAdd?.(obj, isInInitialList, takeover);
    } catch (err) {
      this.listenerThrew(err, 'onAdd');
    }
  }

  /** `resync`: a replay of the cache, not a change the source delivered. */
  private updated(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata, resync: boolean): void {
    try {
      this.listener.onUpdate?.(oldObj, newObj, resync);
    } catch (err) {
      this.listenerThrew(err, 'onUpdate');
    }
  }

  private deleted(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    try {
      this.listener.onDelete?.(obj);
    } catch (err) {
      this.listenerThrew(err, 'onDelete');
    }
  }

  private listenerThrew(err: unknown, callback: string): void {
    this.log.error({ err, callback }, 'informer event listener threw; the informer carries on');
  }

  private stop(): void {
    this.stopped = true;
    this.next = undefined;
    this.retire(this.feed);
    this.retire(this.nextFeed);
    this.nextFeed = undefined;
    if (this.resyncTimer !== undefined) this.clock.clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
  }

  private scheduleResync(): void {
    if (this.resyncPeriodMs <= 0 || this.stopped) return;
    this.resyncTimer = this.clock.setTimeout(() => {
      this.resyncTimer = undefined;
      if (this.stopped) return;
      // Resync replays the cache, and says so; it never contacts the server.
      for (const obj of this.store.values()) this.updated(obj, obj, true);
      this.scheduleResync();
    }, this.resyncPeriodMs);
  }
}

/**
 * Builds an {@link Informer} over `listWatch` and runs it until `signal`
 * aborts: the engine on its own, for tools and tests that want one cache
 * without an `InformerWatchManager`.
 */
export function runInformer(listWatch: ListWatch, listener: InformerListener, signal: AbortSignal, options?: InformerOptions): Informer {
  const informer = new Informer(listWatch, listener, options);
  informer.run(signal);
  return informer;
}

function newFeed(source: ListWatch, holdsObjects: boolean): Feed {
  const checkFirst = holdsObjects && source.delivers === undefined;
  return { source, abort: new AbortController(), holdsObjects, checkFirst, retired: false, pending: undefined };
}
