import {
  type KindUnavailableError,
  gvrKey,
  namespacedNameKey,
  type GroupVersionResource,
  type InformerSource,
  type ListWatch,
  type ListWatchHealth,
  type ListWatchOptions,
  type ListWatchSink,
  type PartialObjectMetadata,
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
}

/**
 * Builds the inner source for a set of ranges, e.g. Kubernetes list/watches
 * that send those ranges' `shardSelector` to the server.
 */
export type RangeInformerSourceFactory = (ranges: readonly HashRange[]) => InformerSource;

/** What one resource's informers of a {@link ShardedInformerSource} hold (see {@link ShardedInformerSource.cachedObjects}). */
export interface ShardCachedObjects {
  readonly gvr: GroupVersionResource;
  /** The objects the informers of the resource cache: this replica's share. */
  readonly objects: readonly PartialObjectMetadata[];
  /** Running inner list/watches of the resource: one per informer, two while a restarted one lists. */
  readonly informers: number;
  /** Objects the inner lists delivered that the filter dropped (outside the share): 0 where the server filters. */
  readonly filteredOut: number;
}

/**
 * An {@link InformerSource} decorator that lets through to the informer
 * engine only the objects whose shard key hashes (FNV-1a 64) into this
 * replica's ranges: the client-side form of the API server's
 * `shardSelector`, for servers without the `ShardedListAndWatch` gate. It
 * is also correct over sources the server filters already (it then
 * filters nothing out). The engine's cache holds only the share.
 *
 * `setRanges` changes the share at runtime: objects that left it are
 * deleted from each informer at once; then each running list/watch is
 * restarted (from `factory(newRanges)` in the server-side mode, so the
 * server sends the new share; from the same source client-side) and its
 * first list reaches the engine as a relist: objects that entered arrive
 * as adds, changed ones as updates, unchanged ones as nothing. Until that
 * list is complete the old list/watch keeps delivering, filtered to the new
 * ranges.
 *
 * Easy to get wrong: client-side, the inner source still lists and
 * watches everything (the network and the parsing); only the server-side
 * selector saves those.
 */
export class ShardedInformerSource implements InformerSource {
  readonly key: ShardKey;
  private current: readonly HashRange[];
  private readonly listWatches = new Set<ShardedListWatch>();
  private readonly hashes = new Map<string, bigint>();
  private readonly factory: RangeInformerSourceFactory | undefined;
  private inner: InformerSource | undefined;
  /** The inner source's word on when a refused kind may be available again; absent where the inner source has none. */
  whenAvailable?(refusal: KindUnavailableError, signal: AbortSignal): Promise<void>;

  constructor(inner: InformerSource | RangeInformerSourceFactory, options: ShardedInformerSourceOptions) {
    if (options?.key !== 'namespace' && options?.key !== 'uid') {
      throw new ShardingConfigError(`key: must be 'namespace' or 'uid', got ${String(options?.key)}`);
    }
    this.key = options.key;
    const ranges = options.ranges ?? [];
    validateRanges(ranges);
    this.current = freeze(ranges);
    if (typeof inner === 'function') this.factory = inner;
    else this.inner = inner;
    // The inner source's word on when a refused kind may be available again; absent where it has none (a factory
    // builds Kubernetes sources, which have it).
    if (this.inner === undefined || this.inner.whenAvailable !== undefined) {
      this.whenAvailable = (refusal, signal) => this.source().whenAvailable?.(refusal, signal) ?? Promise.resolve();
    }
  }

  /** True when list/watches are rebuilt from a factory on a range change (the server-side mode). */
  get reselects(): boolean {
    return this.factory !== undefined;
  }

  createListWatch(gvr: GroupVersionResource, options?: ListWatchOptions): ShardedListWatch {
    const lw = new ShardedListWatch(
      gvr,
      (notOlderThan) => this.source().createListWatch(gvr, notOlderThan === undefined ? options : { ...options, notOlderThan }),
      (obj) => this.owns(obj),
      () => this.listWatches.delete(lw),
    );
    this.listWatches.add(lw);
    return lw;
  }

  private source(): InformerSource {
    if (this.inner === undefined) this.inner = this.factory!(this.current);
    return this.inner;
  }

  /** The ranges owned now. */
  ranges(): readonly HashRange[] {
    return this.current;
  }

  /** Replaces the owned ranges: what left is deleted at once, and every list/watch lists again for what entered. */
  setRanges(ranges: readonly HashRange[]): void {
    validateRanges(ranges);
    const changed = !(covers(this.current, ranges) && covers(ranges, this.current));
    this.current = freeze(ranges);
    if (!changed) return;
    if (this.factory !== undefined) this.inner = undefined; // built for the new ranges by the first list/watch that needs it
    for (const lw of this.listWatches) {
      if (lw.isStopped()) this.listWatches.delete(lw);
      else lw.reshard();
    }
  }

  /**
   * What the informers over this source cache now, per resource: the
   * replica's share (and its memory), with how many inner list/watches run
   * and how many listed objects the filter dropped. Stopped ones are not
   * counted.
   */
  cachedObjects(): ShardCachedObjects[] {
    const byGvr = new Map<
      string,
      { gvr: GroupVersionResource; objects: PartialObjectMetadata[]; informers: number; filteredOut: number }
    >();
    for (const lw of this.listWatches) {
      if (lw.isStopped()) continue;
      const k = gvrKey(lw.gvr);
      let entry = byGvr.get(k);
      if (entry === undefined) byGvr.set(k, (entry = { gvr: lw.gvr, objects: [], informers: 0, filteredOut: 0 }));
      entry.objects.push(...lw.cached());
      entry.informers += lw.innerCount();
      entry.filteredOut += lw.filteredOut;
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

function freeze(ranges: readonly HashRange[]): readonly HashRange[] {
  return Object.freeze(ranges.map((r) => Object.freeze({ start: r.start, end: r.end })));
}

/** One inner list/watch of a {@link ShardedListWatch}, with its stop. */
interface Inner {
  readonly listWatch: ListWatch;
  readonly stop: AbortController;
}

/** A list/watch of a {@link ShardedInformerSource}: the inner one, filtered to the owned ranges. */
export class ShardedListWatch implements ListWatch {
  readonly delivers?: 'metadata' | 'objects';
  readonly gvr: GroupVersionResource;
  /** Present when the inner source reports its own health. */
  readonly health?: () => ListWatchHealth;
  /** Listed objects the filter dropped so far. */
  filteredOut = 0;
  /** The resourceVersion of the last watch event passed on: a restart lists a state not older than it. */
  lastEventVersion: string | undefined;
  private sink: ListWatchSink | undefined;
  private signal: AbortSignal | undefined;
  /** The inner list/watch feeding the engine; before `run`, the one `run` will start. */
  private current: Inner;
  /** A restarted list/watch whose first list is not complete yet. */
  private next: Inner | undefined;

  constructor(
    gvr: GroupVersionResource,
    private readonly build: (notOlderThan: string | undefined) => ListWatch,
    private readonly owns: (obj: PartialObjectMetadata) => boolean,
    private readonly stopped: () => void,
  ) {
    this.gvr = gvr;
    this.current = { listWatch: build(undefined), stop: new AbortController() };
    // What the inner list/watches deliver (every one is built with the same options).
    const delivers = this.current.listWatch.delivers;
    if (delivers !== undefined) this.delivers = delivers;
    if (typeof this.current.listWatch.health === 'function') this.health = () => this.innerHealth();
  }

  run(sink: ListWatchSink, signal: AbortSignal): void {
    this.sink = sink;
    this.signal = signal;
    const stop = (): void => {
      this.current.stop.abort();
      this.next?.stop.abort();
      this.stopped();
    };
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    this.start(this.current, true);
  }

  /** The running list/watch's report; while a restarted one lists and fails, its outage (the new share is not in yet). */
  private innerHealth(): ListWatchHealth {
    const now = this.current.listWatch.health!();
    const next = this.next?.listWatch.health?.();
    return now.failing === undefined && next?.failing !== undefined ? { ...now, failing: next.failing } : now;
  }

  isStopped(): boolean {
    return this.signal?.aborted === true;
  }

  /** What the engine holds (the share). */
  cached(): PartialObjectMetadata[] {
    return this.sink === undefined ? [] : this.sink.cache.list();
  }

  /** Running inner list/watches: 1, or 2 while a restarted one lists. */
  innerCount(): number {
    if (this.sink === undefined) return 0;
    return this.next === undefined ? 1 : 2;
  }

  /** The ranges changed: drop what left at once, and list again through a new inner list/watch. */
  reshard(): void {
    const sink = this.sink;
    if (sink === undefined) {
      // Not running yet: it starts with a list/watch built for the new ranges.
      this.current = { listWatch: this.build(undefined), stop: new AbortController() };
      return;
    }
    sink.retain(this.owns);
    this.next?.stop.abort();
    this.next = { listWatch: this.build(this.lastEventVersion), stop: new AbortController() };
    this.start(this.next, false);
  }

  private start(inner: Inner, first: boolean): void {
    inner.listWatch.run(
      new FilteringSink(this.sink!, this.owns, inner.stop.signal, first ? undefined : () => this.promote(inner), this),
      inner.stop.signal,
    );
  }

  /** A restarted list/watch has listed: it replaces the old one. */
  private promote(inner: Inner): void {
    if (this.next !== inner) return;
    this.current.stop.abort();
    this.current = inner;
    this.next = undefined;
  }
}

/**
 * The sink an inner list/watch writes to: it passes on only what the
 * filter owns and nothing once its list/watch is stopped. A restarted one
 * (`onListed` set) buffers its first list and hands it to the engine whole,
 * as a relist, only once complete.
 */
class FilteringSink implements ListWatchSink {
  private buffer: Map<string, PartialObjectMetadata> | undefined;
  private listed: boolean;
  /** A streamed list is in progress (its dropped objects are counted). */
  private listing = false;

  constructor(
    private readonly target: ListWatchSink,
    private readonly owns: (obj: PartialObjectMetadata) => boolean,
    private readonly stopped: AbortSignal,
    private readonly onListed: (() => void) | undefined,
    private readonly counter: { filteredOut: number; lastEventVersion: string | undefined },
  ) {
    this.listed = onListed === undefined;
  }

  get cache(): ListWatchSink['cache'] {
    return this.target.cache;
  }

  retain(keep: (obj: PartialObjectMetadata) => boolean): void {
    if (this.stopped.aborted) return;
    if (this.listed) this.target.retain(keep);
    else if (this.buffer !== undefined) for (const [key, obj] of this.buffer) if (!keep(obj)) this.buffer.delete(key);
  }

  replace(objects: Iterable<PartialObjectMetadata>): void {
    if (this.stopped.aborted) return;
    const owned: PartialObjectMetadata[] = [];
    for (const obj of objects) {
      if (this.owns(obj)) owned.push(obj);
      else this.counter.filteredOut++;
    }
    this.commit(owned);
  }

  beginList(): void {
    if (this.stopped.aborted) return;
    this.listing = true;
    if (this.listed) this.target.beginList();
    else this.buffer = new Map();
  }

  endList(): void {
    if (this.stopped.aborted) return;
    this.listing = false;
    if (this.listed) return this.target.endList();
    const buffer = this.buffer;
    this.buffer = undefined;
    if (buffer !== undefined) this.commit(buffer.values());
  }

  upsert(obj: PartialObjectMetadata): void {
    if (this.stopped.aborted) return;
    if (!this.owns(obj)) {
      if (this.listing) this.counter.filteredOut++;
      return;
    }
    if (this.listed) {
      this.target.upsert(obj);
      if (!this.listing) this.counter.lastEventVersion = obj.metadata.resourceVersion ?? this.counter.lastEventVersion;
    } else this.buffer?.set(keyOf(obj), obj);
  }

  remove(obj: PartialObjectMetadata): void {
    if (this.stopped.aborted || !this.owns(obj)) return;
    if (this.listed) {
      this.target.remove(obj);
      if (!this.listing) this.counter.lastEventVersion = obj.metadata.resourceVersion ?? this.counter.lastEventVersion;
    } else this.buffer?.delete(keyOf(obj));
  }

  progressed(): void {
    if (!this.stopped.aborted) this.target.progressed();
  }

  failed(err: Error): void {
    if (!this.stopped.aborted) this.target.failed(err);
  }

  private commit(objects: Iterable<PartialObjectMetadata>): void {
    this.listing = false;
    const restarted = !this.listed;
    this.listed = true;
    if (restarted) this.onListed!();
    // A restarted list is the share after a range change: what it adds was taken over, not changed.
    this.target.replace(objects, restarted ? 'takeover' : undefined);
  }
}

function keyOf(obj: PartialObjectMetadata): string {
  return namespacedNameKey({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
}
