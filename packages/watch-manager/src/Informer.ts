import {
  gvrKey,
  realClock,
  silentLogger,
  type Clock,
  type DeletedFinalStateUnknown,
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
import { deliverRelist, type RelistListener } from './deliverRelist.js';
import { MetadataStore } from './MetadataStore.js';

/** What an {@link Informer} tells its one listener: each change of its cache, the first sync, each failure. */
export interface InformerListener extends ResourceEventHandler {
  /** The first complete list is in the cache and was delivered as adds. Called once. */
  onSynced?(): void;
  /** A list or watch request failed; the source keeps retrying. */
  onError?(err: Error): void;
}

/** Options of an {@link Informer}. */
export interface InformerOptions {
  /** How often the cache is replayed to the listener as updates to itself; 0 (default) disables resync. */
  readonly resyncPeriodMs?: number;
  /** Paces resync and the health ages. Default: the real clock. */
  readonly clock?: Clock;
  /** Where a throwing listener is logged. Default: silent. */
  readonly logger?: Logger;
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
  /** A streamed list in progress: the next state, committed at `endList`. */
  private next: MetadataStore | undefined;
  private synced = false;
  private running = false;
  private stopped = false;
  private lists = 0;
  private resyncTimer: TimerHandle | undefined;
  private readonly resyncPeriodMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Health from the sink calls, for sources without their own report. */
  private readonly judged: boolean;
  private lastHeardMs: number | undefined;
  private failingSinceMs: number | undefined;
  private failures = 0;
  private lastFailure: Error | undefined;

  constructor(
    private readonly source: ListWatch,
    private readonly listener: InformerListener,
    options: InformerOptions = {},
  ) {
    this.gvr = source.gvr;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    if (!(this.resyncPeriodMs >= 0)) throw new RangeError(`Informer: resyncPeriodMs must be >= 0, got ${String(this.resyncPeriodMs)}`);
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
    this.source.run(this.sink, signal);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** True once its run signal aborted. */
  isStopped(): boolean {
    return this.stopped;
  }

  list(): PartialObjectMetadata[] {
    return this.store.list();
  }

  get(key: NamespacedName): PartialObjectMetadata | undefined {
    return this.store.get(key.namespace, key.name);
  }

  /** Synced and relists from the engine; idle time, the outage and the list mode from the source's report, else from the sink calls. */
  health(): InformerHealth {
    const relists = Math.max(0, this.lists - 1);
    const wire = this.source.health?.();
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

  /** The sink handed to the source: every call is ignored once stopped. */
  private readonly sink: ListWatchSink = {
    cache: this,
    replace: (objects) => {
      if (this.stopped) return;
      const next = new MetadataStore();
      for (const obj of objects) next.set(obj);
      this.next = undefined;
      this.commit(next);
    },
    beginList: () => {
      // Not contact with the server: a source may begin a list before its request is answered.
      if (!this.stopped) this.next = new MetadataStore();
    },
    endList: () => {
      const next = this.next;
      if (this.stopped || next === undefined) return;
      this.next = undefined;
      this.commit(next);
    },
    upsert: (obj) => {
      if (this.stopped) return;
      if (this.judged) this.heard();
      if (this.next !== undefined) {
        this.next.set(obj);
        return;
      }
      const old = this.store.set(obj);
      // Inlined rather than through `added`/`updated`: this is the event path.
      try {
        if (old === undefined) this.listener.onAdd?.(obj, false);
        else this.listener.onUpdate?.(old, obj);
      } catch (err) {
        this.listenerThrew(err, old === undefined ? 'onAdd' : 'onUpdate');
      }
    },
    remove: (obj) => {
      if (this.stopped) return;
      if (this.judged) this.heard();
      const ns = obj.metadata.namespace ?? '';
      if (this.next !== undefined) {
        this.next.delete(ns, obj.metadata.name);
        return;
      }
      this.store.delete(ns, obj.metadata.name);
      this.deleted(obj);
    },
    retain: (keep) => {
      if (this.stopped) return;
      const next = this.next;
      if (next !== undefined) {
        for (const obj of next.list()) if (!keep(obj)) next.delete(obj.metadata.namespace ?? '', obj.metadata.name);
      }
      for (const obj of this.store.list()) {
        if (keep(obj)) continue;
        this.store.delete(obj.metadata.namespace ?? '', obj.metadata.name);
        this.deleted(obj);
      }
    },
    progressed: () => {
      if (!this.stopped) this.heard();
    },
    failed: (err) => {
      if (this.stopped) return;
      // A list cut off by the failure is never completed: the source lists again with `beginList` or `replace`.
      this.next = undefined;
      if (this.judged) {
        this.failingSinceMs ??= this.clock.now();
        this.failures++;
        this.lastFailure = err;
      }
      try {
        this.listener.onError?.(err);
      } catch (listenerErr) {
        this.log.error({ err: listenerErr }, 'informer error listener threw');
      }
    },
  };

  /** A complete list becomes the cache: the initial adds and the sync signal the first time, the relist diff after. */
  private commit(next: MetadataStore): void {
    this.lists++;
    this.heard();
    const prev = this.store;
    this.store = next;
    if (this.synced) {
      deliverRelist(prev, next, this.relist);
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
    added: (obj) => this.added(obj, false),
    updated: (oldObj, newObj) => this.updated(oldObj, newObj),
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

  private added(obj: PartialObjectMetadata, isInInitialList: boolean): void {
    try {
      this.listener.onAdd?.(obj, isInInitialList);
    } catch (err) {
      this.listenerThrew(err, 'onAdd');
    }
  }

  private updated(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata): void {
    try {
      this.listener.onUpdate?.(oldObj, newObj);
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
    if (this.resyncTimer !== undefined) this.clock.clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
  }

  private scheduleResync(): void {
    if (this.resyncPeriodMs <= 0 || this.stopped) return;
    this.resyncTimer = this.clock.setTimeout(() => {
      this.resyncTimer = undefined;
      if (this.stopped) return;
      // Resync replays the cache; it never contacts the server.
      for (const obj of this.store.values()) this.updated(obj, obj);
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
