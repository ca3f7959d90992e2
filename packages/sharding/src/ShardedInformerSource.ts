import {
  DeletedFinalStateUnknown,
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
 * Easy to get wrong: the inner informers still list and cache everything;
 * only the server-side selector saves that memory.
 */
export class ShardedInformerSource implements InformerSource {
  readonly key: ShardKey;
  private current: readonly HashRange[];
  private readonly informers = new Set<ShardedInformer>();
  private readonly hashes = new Map<string, bigint>();

  constructor(
    private readonly inner: InformerSource,
    options: ShardedInformerSourceOptions,
  ) {
    if (options?.key !== 'namespace' && options?.key !== 'uid') {
      throw new ShardingConfigError(`key: must be 'namespace' or 'uid', got ${String(options?.key)}`);
    }
    this.key = options.key;
    const ranges = options.ranges ?? [];
    validateRanges(ranges);
    this.current = freeze(ranges);
  }

  createInformer(gvr: GroupVersionResource, opts: InformerOptions): ShardedInformer {
    const informer = new ShardedInformer(this.inner.createInformer(gvr, opts), (obj) => this.owns(obj));
    this.informers.add(informer);
    return informer;
  }

  /** The ranges owned now. */
  ranges(): readonly HashRange[] {
    return this.current;
  }

  /** Replaces the owned ranges and tells every informer's handlers what left and what entered. */
  setRanges(ranges: readonly HashRange[]): void {
    validateRanges(ranges);
    this.current = freeze(ranges);
    for (const informer of this.informers) {
      if (informer.isStopped()) this.informers.delete(informer);
      else informer.refilter();
    }
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

function freeze(ranges: readonly HashRange[]): readonly HashRange[] {
  return Object.freeze(ranges.map((r) => Object.freeze({ start: r.start, end: r.end })));
}

function keyOf(obj: PartialObjectMetadata): string {
  return namespacedNameKey({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
}

/** One handler behind the filter, with the objects it was shown (so a range change knows what to retract). */
class FilteredHandler implements ResourceEventHandler {
  readonly shown = new Map<string, PartialObjectMetadata>();
  registration: HandlerRegistration | undefined;

  constructor(
    readonly handler: ResourceEventHandler,
    private readonly owns: (obj: PartialObjectMetadata) => boolean,
  ) {}

  onAdd(obj: PartialObjectMetadata, isInInitialList: boolean): void {
    if (!this.owns(obj)) return this.retract(keyOf(obj));
    const key = keyOf(obj);
    const old = this.shown.get(key);
    this.shown.set(key, obj);
    if (old === undefined) this.handler.onAdd?.(obj, isInInitialList);
    else this.handler.onUpdate?.(old, obj);
  }

  onUpdate(_old: PartialObjectMetadata, obj: PartialObjectMetadata): void {
    const key = keyOf(obj);
    if (!this.owns(obj)) return this.retract(key);
    const old = this.shown.get(key);
    this.shown.set(key, obj);
    if (old === undefined) this.handler.onAdd?.(obj, false);
    else this.handler.onUpdate?.(old, obj);
  }

  onDelete(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    const key = obj instanceof DeletedFinalStateUnknown ? obj.key : keyOf(obj);
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

  private retract(key: string): void {
    const old = this.shown.get(key);
    if (old === undefined) return;
    this.shown.delete(key);
    this.handler.onDelete?.(old);
  }
}

/** An informer of a {@link ShardedInformerSource}: the inner one, seen through the owned ranges. */
export class ShardedInformer implements Informer {
  readonly gvr: GroupVersionResource;
  private readonly filtered = new Map<HandlerRegistration, FilteredHandler>();

  constructor(
    private readonly inner: Informer,
    private readonly owns: (obj: PartialObjectMetadata) => boolean,
  ) {
    this.gvr = inner.gvr;
  }

  run(signal: AbortSignal): void {
    this.inner.run(signal);
  }

  hasSynced(): boolean {
    return this.inner.hasSynced();
  }

  isStopped(): boolean {
    return this.inner.isStopped();
  }

  addEventHandler(handler: ResourceEventHandler): HandlerRegistration {
    const f = new FilteredHandler(handler, this.owns);
    const registration = this.inner.addEventHandler(f);
    f.registration = registration;
    this.filtered.set(registration, f);
    return registration;
  }

  removeEventHandler(registration: HandlerRegistration): void {
    this.filtered.delete(registration);
    this.inner.removeEventHandler(registration);
  }

  list(): PartialObjectMetadata[] {
    return this.inner.list().filter(this.owns);
  }

  get(key: NamespacedName): PartialObjectMetadata | undefined {
    const obj = this.inner.get(key);
    return obj !== undefined && this.owns(obj) ? obj : undefined;
  }

  setWatchErrorHandler(fn: (err: Error) => void): void {
    this.inner.setWatchErrorHandler(fn);
  }

  health(): InformerHealth {
    return this.inner.health?.() ?? { synced: this.inner.hasSynced(), idleMs: undefined, relists: 0, failing: undefined };
  }

  /** Called by the source after a range change. */
  refilter(): void {
    if (!this.inner.hasSynced() && this.filtered.size === 0) return;
    const cached = this.inner.list();
    for (const f of this.filtered.values()) f.refilter(cached);
  }
}
