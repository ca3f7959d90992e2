import {
  DeletedFinalStateUnknown,
  realClock,
  type Clock,
  gvrKey,
  namespacedNameKey,
  type GroupVersionResource,
  type HandlerRegistration,
  type Informer,
  type InformerHealth,
  type InformerOptions,
  type InformerSource,
  type NamespacedName,
  type PartialObjectMetadata,
  type ResourceEventHandler,
  type TimerHandle,
} from '@protean/core';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges, validateRanges, type HashRange, type ShardKey } from './HashRange.js';
import { ShardingConfigError } from './ShardingConfigError.js';

/** Options of a {@link ShardedInformerSource}. */
export interface ShardedInformerSourceOptions {
  /** The field hashed: `'namespace'` (cluster-scoped objects hash `""`) or `'uid'`. */
  readonly key: ShardKey;
  /** The ranges this replica owns at first. Default: none (nothing passes until `setRanges`). */
  readonly ranges?: readonly HashRange[];
  /** Paces the wait for a re-selected informer's list (see the class). Default: the real clock. */
  readonly clock?: Clock;
}

/**
 * Builds the inner source for a set of ranges, e.g. Kubernetes informers
 * that send those ranges' `shardSelector` to the server.
 */
export type RangeInformerSourceFactory = (ranges: readonly HashRange[]) => InformerSource;

/** What one resource's informers of a {@link ShardedInformerSource} cache (see {@link ShardedInformerSource.cachedObjects}). */
export interface ShardCachedObjects {
  readonly gvr: GroupVersionResource;
  /** The objects the running inner informers hold, unfiltered (during a re-selection the old and the new informer's both). */
  readonly objects: readonly PartialObjectMetadata[];
  /** Running inner informers of the resource: one per informer, two while a re-selected one lists. */
  readonly informers: number;
}

/** How often a re-selected informer's sync is checked. */
const SWAP_POLL_MS = 50;

/**
 * An {@link InformerSource} decorator that shows each informer's handlers,
 * `list` and `get` only the objects whose shard key hashes (FNV-1a 64)
 * into this replica's ranges: the client-side form of the API server's
 * `shardSelector`, for servers without the `ShardedListAndWatch` gate. It
 * is also correct over informers the server filters already (it then
 * filters nothing out).
 *
 * `setRanges` changes the share at runtime: each handler gets a delete for
 * every object it was shown that left the share, and an add
 * (`isInInitialList` false) for every cached object that entered it.
 *
 * The inner source is either one source (whose informers list and cache
 * everything: the client-side mode) or a {@link RangeInformerSourceFactory}
 * (the server-side mode: its informers cache only the ranges they were
 * built for). With a factory, every range change (widening or
 * shrinking) builds each informer anew from `factory(newRanges)`, runs it,
 * and once it has listed moves the handlers over: objects in both shares
 * arrive as updates only if they changed meanwhile (same
 * `resourceVersion`: nothing is delivered), entering ones as adds,
 * leaving ones as deletes (at once, when the change is applied, as the
 * client-side filter does); until then `list` and `get` answer from the
 * old informer, narrowed to the new ranges. Informers created after a
 * change are built for the current ranges.
 *
 * Easy to get wrong: in the client-side mode the inner informers still
 * list and cache everything; only the server-side selector saves memory.
 */
export class ShardedInformerSource implements InformerSource {
  readonly key: ShardKey;
  private current: readonly HashRange[];
  private readonly informers = new Set<ShardedInformer>();
  private readonly hashes = new Map<string, bigint>();
  private readonly factory: RangeInformerSourceFactory | undefined;
  private inner: InformerSource | undefined;
  private readonly clock: Clock;

  constructor(inner: InformerSource | RangeInformerSourceFactory, options: ShardedInformerSourceOptions) {
    if (options?.key !== 'namespace' && options?.key !== 'uid') {
      throw new ShardingConfigError(`key: must be 'namespace' or 'uid', got ${String(options?.key)}`);
    }
    this.key = options.key;
    const ranges = options.ranges ?? [];
    validateRanges(ranges);
    this.current = freeze(ranges);
    this.clock = options.clock ?? realClock;
    if (typeof inner === 'function') this.factory = inner;
    else this.inner = inner;
  }

  /** True when informers are rebuilt from a factory on a range change (the server-side mode). */
  get reselects(): boolean {
    return this.factory !== undefined;
  }

  createInformer(gvr: GroupVersionResource, opts: InformerOptions): ShardedInformer {
    const informer = new ShardedInformer(this.source().createInformer(gvr, opts), (obj) => this.owns(obj), this.clock);
    if (this.factory !== undefined) informer.rebuild = () => this.source().createInformer(gvr, opts);
    this.informers.add(informer);
    return informer;
  }

  private source(): InformerSource {
    if (this.inner === undefined) this.inner = this.factory!(this.current);
    return this.inner;
  }

  /** The ranges owned now. */
  ranges(): readonly HashRange[] {
    return this.current;
  }

  /** Replaces the owned ranges and tells every informer's handlers what left and what entered. */
  setRanges(ranges: readonly HashRange[]): void {
    validateRanges(ranges);
    // Server-side, the selector must follow the share both ways: wider to see what entered, narrower to stop caching what left.
    const reselect = this.factory !== undefined && !(covers(this.current, ranges) && covers(ranges, this.current));
    this.current = freeze(ranges);
    if (reselect) this.inner = undefined; // built for the new ranges by the first informer that needs it
    for (const informer of this.informers) {
      if (informer.isStopped()) this.informers.delete(informer);
      else if (reselect) informer.reselect();
      else informer.refilter();
    }
  }

  /**
   * What the inner (Kubernetes) informers cache now, per resource, before
   * the client-side filter: the replica's memory. Server-side, after the
   * re-selection that follows a change, the share; client-side,
   * everything. Stopped informers are not counted.
   */
  cachedObjects(): ShardCachedObjects[] {
    const byGvr = new Map<string, { gvr: GroupVersionResource; objects: PartialObjectMetadata[]; informers: number }>();
    for (const informer of this.informers) {
      if (informer.isStopped()) continue;
      const k = gvrKey(informer.gvr);
      let entry = byGvr.get(k);
      if (entry === undefined) byGvr.set(k, (entry = { gvr: informer.gvr, objects: [], informers: 0 }));
      for (const held of informer.cached()) {
        entry.informers++;
        entry.objects.push(...held);
      }
    }
    return [...byGvr.values()];
  }

  /** True when `obj`'s shard key hashes into the owned ranges. */
  owns(obj: PartialObjectMetadata): boolean {
    return inRanges(this.hashOf(obj), this.current);
  }

  private hashOf(obj: PartialObjectMetadata): bigint {
    const value = (this.key === 'namespace' ? obj.metadata.namespace : obj.metadata.uid) ?? '';
    let h = this.hashes.get(value);
    if (h === undefined) {
      h = fnv1a64(value);
      // Namespaces are few; uids are many and hashed once per event at most.
      if (this.key === 'namespace') this.hashes.set(value, h);
    }
    return h;
  }
}

/** True when every hash of `inner` is in `outer`. */
function covers(outer: readonly HashRange[], inner: readonly HashRange[]): boolean {
  return inner.every((r) => {
    let at = r.start;
    for (const o of outer) if (o.start <= at && at < o.end) at = o.end < r.end ? o.end : r.end;
    return at >= r.end;
  });
}

/** True when both carry the same, known `resourceVersion`. */
function sameVersion(a: PartialObjectMetadata, b: PartialObjectMetadata): boolean {
  return a.metadata.resourceVersion !== undefined && a.metadata.resourceVersion === b.metadata.resourceVersion;
}

function freeze(ranges: readonly HashRange[]): readonly HashRange[] {
  return Object.freeze(ranges.map((r) => Object.freeze({ start: r.start, end: r.end })));
}

function keyOf(obj: PartialObjectMetadata): string {
  return namespacedNameKey({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
}

/** One handler behind the filter, with the objects it was shown (so a range change knows what to retract). */
class FilteredHandler implements ResourceEventHandler {
  readonly shown = new Map<string, PartialObjectMetadata>();
  /** The inner registration it is added with now. */
  registration: HandlerRegistration | undefined;
  /** While moving to a re-selected informer: the keys shown that it has not delivered yet. */
  private unconfirmed: Set<string> | undefined;

  constructor(
    readonly handler: ResourceEventHandler,
    private readonly owns: (obj: PartialObjectMetadata) => boolean,
  ) {}

  onAdd(obj: PartialObjectMetadata, isInInitialList: boolean): void {
    const key = keyOf(obj);
    // The new informer's list during a move re-delivers what the handler saw: an unchanged object is not news.
    const moving = this.unconfirmed?.delete(key) === true;
    if (!this.owns(obj)) return this.retract(key);
    const old = this.shown.get(key);
    this.shown.set(key, obj);
    if (old === undefined) this.handler.onAdd?.(obj, this.unconfirmed === undefined && isInInitialList);
    else if (!(moving && sameVersion(old, obj))) this.handler.onUpdate?.(old, obj);
  }

  onUpdate(_old: PartialObjectMetadata, obj: PartialObjectMetadata): void {
    const key = keyOf(obj);
    this.unconfirmed?.delete(key);
    if (!this.owns(obj)) return this.retract(key);
    const old = this.shown.get(key);
    this.shown.set(key, obj);
    if (old === undefined) this.handler.onAdd?.(obj, false);
    else this.handler.onUpdate?.(old, obj);
  }

  onDelete(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    const key = obj instanceof DeletedFinalStateUnknown ? obj.key : keyOf(obj);
    this.unconfirmed?.delete(key);
    if (!this.shown.delete(key)) return;
    this.handler.onDelete?.(obj);
  }

  /** Retracts what left the share, then shows what entered it. */
  refilter(cached: readonly PartialObjectMetadata[]): void {
    for (const [key, obj] of [...this.shown]) {
      if (!this.owns(obj)) this.retract(key);
    }
    for (const obj of cached) {
      const key = keyOf(obj);
      if (this.owns(obj) && !this.shown.has(key)) {
        this.shown.set(key, obj);
        this.handler.onAdd?.(obj, false);
      }
    }
  }

  /** Starts a move to a new informer: what it does not list by the end is retracted. */
  beginMove(): void {
    this.unconfirmed = new Set(this.shown.keys());
  }

  /** Ends a move: the new informer has listed; retracts what it did not deliver. */
  endMove(): void {
    const gone = this.unconfirmed ?? new Set<string>();
    this.unconfirmed = undefined;
    for (const key of gone) this.retract(key);
  }

  private retract(key: string): void {
    const old = this.shown.get(key);
    if (old === undefined) return;
    this.shown.delete(key);
    this.handler.onDelete?.(old);
  }
}

/** The registration a {@link ShardedInformer} hands out: stable across re-selections. */
class ShardedRegistration implements HandlerRegistration {
  constructor(readonly filtered: FilteredHandler) {}
  private moved = false;

  hasSynced(): boolean {
    if (this.moved) return true; // synced once: a re-selection does not unsync a handler
    const synced = this.filtered.registration?.hasSynced() ?? false;
    if (synced) this.moved = true;
    return synced;
  }
}

/** An informer of a {@link ShardedInformerSource}: the inner one, seen through the owned ranges. */
export class ShardedInformer implements Informer {
  readonly gvr: GroupVersionResource;
  /** Set by the source in the server-side mode: builds the inner informer for the current ranges. */
  rebuild: (() => Informer) | undefined;
  private readonly filtered = new Map<ShardedRegistration, FilteredHandler>();
  private watchErrorHandler: ((err: Error) => void) | undefined;
  private signal: AbortSignal | undefined;
  private innerStop: AbortController | undefined;
  /** A re-selected informer still listing, with its stop; handlers move to it once it has synced. */
  private next: { informer: Informer; stop: AbortController; timer: TimerHandle | undefined } | undefined;

  constructor(
    private inner: Informer,
    private readonly owns: (obj: PartialObjectMetadata) => boolean,
    private readonly clock: Clock,
  ) {
    this.gvr = inner.gvr;
  }

  run(signal: AbortSignal): void {
    this.signal = signal;
    this.innerStop = linked(signal);
    this.inner.run(this.innerStop.signal);
    signal.addEventListener('abort', () => this.cancelNext(), { once: true });
  }

  hasSynced(): boolean {
    return this.inner.hasSynced();
  }

  isStopped(): boolean {
    return this.signal?.aborted === true || (this.signal === undefined && this.inner.isStopped());
  }

  addEventHandler(handler: ResourceEventHandler): HandlerRegistration {
    const f = new FilteredHandler(handler, this.owns);
    const registration = new ShardedRegistration(f);
    this.filtered.set(registration, f);
    f.registration = this.inner.addEventHandler(f);
    return registration;
  }

  removeEventHandler(registration: HandlerRegistration): void {
    const f = this.filtered.get(registration as ShardedRegistration);
    if (f === undefined) return;
    this.filtered.delete(registration as ShardedRegistration);
    if (f.registration !== undefined) this.inner.removeEventHandler(f.registration);
  }

  list(): PartialObjectMetadata[] {
    return this.inner.list().filter(this.owns);
  }

  get(key: NamespacedName): PartialObjectMetadata | undefined {
    const obj = this.inner.get(key);
    return obj !== undefined && this.owns(obj) ? obj : undefined;
  }

  setWatchErrorHandler(fn: (err: Error) => void): void {
    this.watchErrorHandler = fn;
    this.inner.setWatchErrorHandler(fn);
  }

  health(): InformerHealth {
    return this.inner.health?.() ?? { synced: this.inner.hasSynced(), idleMs: undefined, relists: 0, failing: undefined };
  }

  /** What the running inner informers hold, unfiltered: the current one's list, and a re-selected one's while it lists. */
  cached(): PartialObjectMetadata[][] {
    const held: PartialObjectMetadata[][] = [];
    if (this.signal === undefined) return held; // not running: the inner informer holds nothing
    if (!this.inner.isStopped()) held.push(this.inner.list());
    if (this.next !== undefined) held.push(this.next.informer.list());
    return held;
  }

  /** Called by the source after a range change that keeps the inner informer. */
  refilter(): void {
    const cached = this.inner.list();
    for (const f of this.filtered.values()) f.refilter(cached);
  }

  /** Called by the source after a range change that needs a new inner informer (server-side mode). */
  reselect(): void {
    if (this.rebuild === undefined) return this.refilter();
    this.cancelNext();
    const informer = this.rebuild();
    if (this.watchErrorHandler !== undefined) informer.setWatchErrorHandler(this.watchErrorHandler);
    if (this.signal === undefined) {
      // Not running yet: swap at once; the handlers get the new informer's list when it runs.
      for (const f of this.filtered.values()) {
        if (f.registration !== undefined) this.inner.removeEventHandler(f.registration);
      }
      this.inner = informer;
      for (const f of this.filtered.values()) f.registration = informer.addEventHandler(f);
      return;
    }
    // Meanwhile the old informer serves, narrowed to the new ranges.
    this.refilter();
    const stop = linked(this.signal);
    this.next = { informer, stop, timer: undefined };
    informer.run(stop.signal);
    this.awaitNext();
  }

  private awaitNext(): void {
    const next = this.next;
    if (next === undefined) return;
    if (!next.informer.hasSynced()) {
      next.timer = this.clock.setTimeout(() => this.awaitNext(), SWAP_POLL_MS);
      return;
    }
    this.next = undefined;
    const old = this.inner;
    for (const f of this.filtered.values()) {
      if (f.registration !== undefined) old.removeEventHandler(f.registration);
    }
    this.innerStop?.abort();
    this.inner = next.informer;
    this.innerStop = next.stop;
    for (const f of this.filtered.values()) {
      f.beginMove();
      f.registration = next.informer.addEventHandler(f);
      f.endMove();
    }
  }

  private cancelNext(): void {
    if (this.next === undefined) return;
    if (this.next.timer !== undefined) this.clock.clearTimeout(this.next.timer);
    this.next.stop.abort();
    this.next = undefined;
  }
}

function linked(parent: AbortSignal): AbortController {
  const c = new AbortController();
  if (parent.aborted) c.abort(parent.reason);
  else parent.addEventListener('abort', () => c.abort(parent.reason), { once: true });
  return c;
}
