import {
  type KindUnavailableError,
  gvrKey,
  type GroupVersionResource,
  type InformerSource,
  type ListWatch,
  type ListWatchOptions,
  type ListWatchSink,
  type PartialObjectMetadata,
  type ListWatchHealth,
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
 * deleted from each informer at once; then each informer switches to a new
 * inner list/watch (from `factory(newRanges)` in the server-side mode, so
 * the server sends the new share; from the same source client-side),
 * through the engine's own switch (`ListWatchSink.switchSource`): its
 * first list reaches the engine as a relist, objects that entered arrive
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

/**
 * A list/watch of a {@link ShardedInformerSource}: the inner one, filtered
 * to the owned ranges. On a range change it drops what left at once and
 * asks the informer engine to switch to a new inner list/watch
 * (`ListWatchSink.switchSource`: built for the new ranges, from no older a
 * state than the engine applied, its first list delivered as a takeover
 * relist while the old one keeps feeding); the engine's switch is the only
 * one.
 */
export class ShardedListWatch implements ListWatch {
  readonly delivers?: 'metadata' | 'objects';
  readonly gvr: GroupVersionResource;
  /** Present when the inner source reports its own health. */
  readonly health?: () => ListWatchHealth;
  /** Listed objects the filter dropped so far. */
  filteredOut = 0;
  /** The inner list/watch `run` starts; rebuilt by a range change before that. */
  private first: ListWatch;
  /** The engine's sinks of the inner list/watches running, oldest first: two while the engine switches. */
  private readonly running: ListWatchSink[] = [];
  private ran = false;

  constructor(
    gvr: GroupVersionResource,
    private readonly build: (notOlderThan: string | undefined) => ListWatch,
    private readonly owns: (obj: PartialObjectMetadata) => boolean,
    private readonly stopped: () => void,
  ) {
    this.gvr = gvr;
    this.first = build(undefined);
    // What the inner list/watches deliver (every one is built with the same options).
    const delivers = this.first.delivers;
    if (delivers !== undefined) this.delivers = delivers;
    if (typeof this.first.health === 'function') this.health = () => this.first.health!();
  }

  run(sink: ListWatchSink, signal: AbortSignal): void {
    this.runInner(this.first, sink, signal);
  }

  /** True once the engine stopped every inner list/watch it ran. */
  isStopped(): boolean {
    return this.ran && this.running.length === 0;
  }

  /** What the engine holds (the share). */
  cached(): PartialObjectMetadata[] {
    return this.running[0]?.cache.list() ?? [];
  }

  /** Running inner list/watches: 1, or 2 while the engine switches to a restarted one. */
  innerCount(): number {
    return this.running.length;
  }

  /** The ranges changed: drop what left at once, and have the engine switch to a new inner list/watch. */
  reshard(): void {
    const newest = this.running.at(-1);
    if (newest === undefined) {
      // Not running yet: it starts with a list/watch built for the new ranges.
      if (!this.ran) this.first = this.build(undefined);
      return;
    }
    for (const sink of this.running) sink.retain(this.owns);
    newest.switchSource((notOlderThan) => this.filtered(this.build(notOlderThan)), 'takeover');
  }

  /** `inner` as the engine runs it after a switch: through the filter, counted while it runs. */
  private filtered(inner: ListWatch): ListWatch {
    const run = (sink: ListWatchSink, signal: AbortSignal): void => this.runInner(inner, sink, signal);
    const lw: ListWatch = { gvr: inner.gvr, run, ...(inner.delivers === undefined ? {} : { delivers: inner.delivers }) };
    return inner.health === undefined ? lw : { ...lw, health: () => inner.health!() };
  }

  private runInner(inner: ListWatch, sink: ListWatchSink, signal: AbortSignal): void {
    this.ran = true;
    if (signal.aborted) {
      if (this.running.length === 0) this.stopped();
      return;
    }
    this.running.push(sink);
    const stop = (): void => {
      this.running.splice(this.running.indexOf(sink), 1);
      if (this.running.length === 0) this.stopped();
    };
    signal.addEventListener('abort', stop, { once: true });
    inner.run(new FilteringSink(sink, this.owns, signal, this, (lw) => this.filtered(lw)), signal);
  }
}

/**
 * The sink an inner list/watch writes to: it passes on only what the
 * filter owns (counting what a list brought that it dropped), and nothing
 * once its list/watch is stopped.
 */
class FilteringSink implements ListWatchSink {
  /** A streamed list is in progress (its dropped objects are counted). */
  private listing = false;

  constructor(
    private readonly target: ListWatchSink,
    private readonly owns: (obj: PartialObjectMetadata) => boolean,
    private readonly stopped: AbortSignal,
    private readonly counter: { filteredOut: number },
    /** Wraps a list/watch the inner one switches to in the same filter. */
    private readonly filtered: (lw: ListWatch) => ListWatch,
  ) {}

  get cache(): ListWatchSink['cache'] {
    return this.target.cache;
  }

  retain(keep: (obj: PartialObjectMetadata) => boolean): void {
    if (!this.stopped.aborted) this.target.retain(keep);
  }

  replace(objects: Iterable<PartialObjectMetadata>, reason?: 'takeover'): void {
    if (this.stopped.aborted) return;
    const owned: PartialObjectMetadata[] = [];
    for (const obj of objects) {
      if (this.owns(obj)) owned.push(obj);
      else this.counter.filteredOut++;
    }
    this.listing = false;
    this.target.replace(owned, reason);
  }

  beginList(): void {
    if (this.stopped.aborted) return;
    this.listing = true;
    this.target.beginList();
  }

  endList(): void {
    if (this.stopped.aborted) return;
    this.listing = false;
    this.target.endList();
  }

  upsert(obj: PartialObjectMetadata): void {
    if (this.stopped.aborted) return;
    if (this.owns(obj)) this.target.upsert(obj);
    else if (this.listing) this.counter.filteredOut++;
  }

  remove(obj: PartialObjectMetadata): void {
    if (!this.stopped.aborted && this.owns(obj)) this.target.remove(obj);
  }

  progressed(): void {
    if (!this.stopped.aborted) this.target.progressed();
  }

  failed(err: Error): void {
    if (!this.stopped.aborted) this.target.failed(err);
  }

  switchSource(build: (notOlderThan: string | undefined) => ListWatch, reason?: 'takeover'): void {
    if (!this.stopped.aborted) this.target.switchSource((notOlderThan) => this.filtered(build(notOlderThan)), reason);
  }
}
