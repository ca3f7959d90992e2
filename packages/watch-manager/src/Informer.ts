import {
  gvrKey,
  realClock,
  silentLogger,
  type CachedObject,
  type Clock,
  type IndexFunc,
  type GroupVersionResource,
  type InformerCache,
  type InformerHealth,
  type ListWatch,
  type ListWatchSink,
  type NamespacedName,
  type PartialObjectMetadata,
  type TimerHandle,
} from '@protean/core';
import { holdMemoryReducer, wasChecked } from '@protean/core/internal';
import { deliverRelist, type RelistListener } from './deliverRelist.js';
import { CacheIndexes } from './CacheIndexes.js';
import { Feed } from './Feed.js';
import { FeedSwitch } from './FeedSwitch.js';
import { ListenerCalls, type InformerListener } from './InformerListener.js';
import { checkResyncPeriodMs, type InformerOptions } from './InformerOptions.js';
import { MetadataStore } from './MetadataStore.js';

export type { InformerListener } from './InformerListener.js';
export type { InformerOptions } from './InformerOptions.js';

/** Error of a second `run` call, or of a switch of an informer not running. */
class InformerStateError extends Error {
  override readonly name = 'InformerStateError';
}

/**
 * The informer engine: one GVR's metadata cache, fed by a {@link ListWatch}
 * through its sink, and told to one {@link InformerListener}. It holds what
 * every source would otherwise re-implement: the cache, the relist diff
 * (objects gone from a new list are deleted as `DeletedFinalStateUnknown`
 * tombstones; unchanged ones produce nothing), the initial-list flag,
 * resync, the sync signal, health (from the sink calls, or the source's
 * own report where it has one) and the switch to another list/watch
 * ({@link FeedSwitch}).
 *
 * Easy to get wrong: events reach the listener synchronously inside the
 * sink call, after the cache changed, so a listener reading the cache sees
 * the new state. Once the run signal aborts, sink calls change nothing.
 */
export class Informer implements InformerCache {
  readonly gvr: GroupVersionResource;
  private store = new MetadataStore();
  /** Secondary indexes over the live cache. */
  private readonly indexes = new CacheIndexes(() => this.store);
  /** A streamed list of the current feed in progress: the next state, committed at `endList`. */
  private next: MetadataStore | undefined;
  private synced = false;
  /** A relist of a share taken over is being delivered: its adds are flagged `takeover`. */
  private takingOver = false;
  private running = false;
  private stopped = false;
  private lists = 0;
  /** Releases the process's memory reducer hold this informer took in `run` (see core's `holdMemoryReducer`). */
  private releaseMemoryReducer: (() => void) | undefined;
  private resyncTimer: TimerHandle | undefined;
  private readonly resyncPeriodMs: number;
  private readonly clock: Clock;
  private readonly calls: ListenerCalls;
  /** The list/watch feeding the cache, and one switched to. */
  private readonly feeds: FeedSwitch;

  constructor(
    source: ListWatch,
    private readonly listener: InformerListener,
    options: InformerOptions = {},
  ) {
    this.gvr = source.gvr;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    // Options an InformerWatchManager built were checked where its settings entered.
    if (!wasChecked(options)) checkResyncPeriodMs('Informer', this.resyncPeriodMs);
    this.clock = options.clock ?? realClock;
    const log = (options.logger ?? silentLogger()).child({ component: 'informer', gvr: gvrKey(source.gvr) });
    this.calls = new ListenerCalls(listener, log);
    this.feeds = new FeedSwitch(new Feed(source, options.holdsObjects ?? false, this.clock), this.clock, (feed) => this.sinkFor(feed));
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
    // A list is the burst whose garbage V8 collects once the process idles, if its memory reducer can tell.
    this.releaseMemoryReducer = holdMemoryReducer();
    const feed = this.feeds.current;
    feed.source.run(this.sinkFor(feed), feed.abort.signal);
  }

  /**
   * Replaces the list/watch: `source` runs at once, the current one keeps
   * feeding the cache until `source`'s first list is complete, which then
   * replaces the cache as a relist (objects whose resourceVersion did not
   * change are replaced silently, so a switch from metadata to full
   * objects delivers no events for them) and `onSourceSwitched` is called.
   * Before the first sync it takes over at once. A switch still listing is
   * dropped by the next one. `holdsObjects`: `source` delivers full objects.
   * A list/watch asks for the same switch through its sink
   * (`ListWatchSink.switchSource`, a decorator whose filter changed).
   */
  switchSource(source: ListWatch, holdsObjects: boolean): void {
    if (!this.running || this.stopped) throw new InformerStateError(`informer of ${gvrKey(this.gvr)} is not running`);
    this.feeds.switchSource(source, holdsObjects, this.takesOverAtOnce());
  }

  /** True while a source given to `switchSource` has not listed yet (the current one still feeds the cache). */
  isSwitching(): boolean {
    return this.feeds.isSwitching();
  }

  /** True when the current source delivers full objects (asked for with `holdsObjects`). */
  holdsObjects(): boolean {
    return this.feeds.current.holdsObjects;
  }

  /** The resourceVersion of the last watch event applied (a switched-to source lists a state not older than it). */
  lastEventResourceVersion(): string | undefined {
    return this.feeds.lastVersion;
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
    return this.indexes.define(name, fn);
  }

  /** The function `name` is indexed by, if it is (the built-in `owner` only once built). */
  indexFuncOf(name: string): IndexFunc | undefined {
    return this.indexes.funcOf(name);
  }

  /**
   * The cached objects `index` files under `value` (`owner`, built in, is
   * built on first use; `namespace` is the cache's own layout); undefined
   * when not indexed.
   */
  byIndex(index: string, value: string): PartialObjectMetadata[] | undefined {
    return this.indexes.byIndex(index, value);
  }

  /** The values `index` files `obj` under; undefined when not indexed (and not `owner`). */
  indexValues(index: string, obj: CachedObject): readonly string[] | undefined {
    return this.indexes.values(index, obj);
  }

  get(key: NamespacedName): PartialObjectMetadata | undefined {
    return this.store.get(key.namespace, key.name);
  }

  /**
   * Synced and relists from the engine; idle time, the outage and the list
   * mode from the current source's report, else from its sink calls (and a
   * failing switch's outage while the current source has none).
   */
  health(): InformerHealth {
    return { synced: this.synced, relists: Math.max(0, this.lists - 1), ...this.feeds.health() };
  }

  /**
   * The sink handed to a feed's source: every call is ignored once the
   * feed retired (the informer stopped, or another feed replaced it); a feed not current yet builds
   * its first list aside ({@link Feed.pending}) and becomes current with it.
   */
  private sinkFor(feed: Feed): ListWatchSink {
    const feeds = this.feeds;
    return {
      cache: this,
      replace: (objects, reason) => {
        if (feed.retired) return;
        const next = new MetadataStore();
        for (const obj of objects) {
          if (feed.checkFirst) feed.checkDelivery(obj, this.calls);
          next.set(obj);
        }
        if (feed !== feeds.current) return this.promote(feed, next, reason === 'takeover');
        this.next = undefined;
        this.commit(next, false, reason === 'takeover');
      },
      beginList: () => {
        // Not contact with the server: a source may begin a list before its request is answered.
        if (feed.retired) return;
        if (feed === feeds.current) this.next = new MetadataStore();
        else feed.pending = new MetadataStore();
      },
      endList: () => {
        if (feed.retired) return;
        if (feed !== feeds.current) {
          const pending = feed.pending;
          feed.pending = undefined;
          if (pending !== undefined) this.promote(feed, pending, false);
          return;
        }
        const next = this.next;
        if (next === undefined) return;
        this.next = undefined;
        this.commit(next, false);
      },
      upsert: (obj) => {
        if (feed.retired) return;
        if (feed.checkFirst) feed.checkDelivery(obj, this.calls);
        if (feed.judged) feed.heard();
        if (feed !== feeds.current) {
          feed.pending?.set(obj);
          return;
        }
        if (this.next !== undefined) {
          this.next.set(obj);
          return;
        }
        feeds.lastVersion = obj.metadata.resourceVersion;
        const old = this.store.set(obj);
        // Inlined rather than through `calls.added`/`calls.updated`: this is the event path.
        try {
          if (old === undefined) this.listener.onAdd?.(obj, false);
          else this.listener.onUpdate?.(old, obj, false);
        } catch (err) {
          this.calls.threw(err, old === undefined ? 'onAdd' : 'onUpdate');
        }
      },
      remove: (obj) => {
        if (feed.retired) return;
        if (feed.judged) feed.heard();
        const ns = obj.metadata.namespace ?? '';
        if (feed !== feeds.current) {
          feed.pending?.delete(ns, obj.metadata.name);
          return;
        }
        if (this.next !== undefined) {
          this.next.delete(ns, obj.metadata.name);
          return;
        }
        feeds.lastVersion = obj.metadata.resourceVersion;
        this.store.delete(ns, obj.metadata.name);
        this.calls.deleted(obj);
      },
      retain: (keep) => {
        if (feed.retired) return;
        const next = feed === feeds.current ? this.next : feed.pending;
        if (next !== undefined) {
          for (const obj of next.list()) if (!keep(obj)) next.delete(obj.metadata.namespace ?? '', obj.metadata.name);
        }
        if (feed !== feeds.current) return;
        for (const obj of this.store.list()) {
          if (keep(obj)) continue;
          this.store.delete(obj.metadata.namespace ?? '', obj.metadata.name);
          this.calls.deleted(obj);
        }
      },
      progressed: () => {
        if (!feed.retired) feed.heard();
      },
      failed: (err) => {
        if (feed.retired) return;
        // A list cut off by the failure is never completed: the source lists again with `beginList` or `replace`.
        if (feed !== feeds.current) feed.pending = undefined;
        else this.next = undefined;
        feed.failed(err);
        this.calls.error(err);
      },
      switchSource: (build, reason) => {
        if (feed.retired) return;
        feeds.switchFrom(feed, build, reason, this.takesOverAtOnce());
      },
    };
  }

  /**
   * Before the first sync a switch takes over at once (nothing was
   * delivered to keep feeding): the current source's streamed list goes.
   */
  private takesOverAtOnce(): boolean {
    if (this.synced) return false;
    this.next = undefined;
    return true;
  }

  /** A switched-to feed listed: it becomes current, and its list replaces the cache. */
  private promote(feed: Feed, list: MetadataStore, takeover: boolean): void {
    this.feeds.promote(feed);
    this.next = undefined;
    this.commit(list, feed.switched, feed.takeover || takeover);
    if (feed.switched) this.calls.sourceSwitched();
  }

  /**
   * A complete list becomes the cache: the initial adds and the sync signal
   * the first time, the relist diff after (`switched`: unchanged objects
   * are the new source's, as after a switch to full objects).
   */
  private commit(next: MetadataStore, switched: boolean, takeover = false): void {
    this.lists++;
    this.feeds.current.heard();
    const prev = this.store;
    this.store = next;
    this.indexes.follow(prev, next);
    if (this.synced) {
      this.takingOver = takeover;
      try {
        deliverRelist(prev, next, this.relist, switched);
      } finally {
        this.takingOver = false;
      }
      return;
    }
    for (const obj of next.values()) this.calls.added(obj, true);
    this.synced = true;
    this.scheduleResync();
    this.calls.synced();
  }

  /** Where the relist diff delivers. */
  private readonly relist: RelistListener = {
    added: (obj) => this.calls.added(obj, false, this.takingOver),
    updated: (oldObj, newObj) => this.calls.updated(oldObj, newObj, false),
    deleted: (obj) => this.calls.deleted(obj),
  };

  private stop(): void {
    this.stopped = true;
    this.next = undefined;
    this.feeds.stop();
    this.releaseMemoryReducer?.();
    if (this.resyncTimer !== undefined) this.clock.clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
  }

  private scheduleResync(): void {
    if (this.resyncPeriodMs <= 0 || this.stopped) return;
    this.resyncTimer = this.clock.setTimeout(() => {
      this.resyncTimer = undefined;
      if (this.stopped) return;
      // Resync replays the cache, and says so; it never contacts the server.
      for (const obj of this.store.values()) this.calls.updated(obj, obj, true);
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
