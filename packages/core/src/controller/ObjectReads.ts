import type { Clock, TimerHandle } from '../clock.js';
import type { WatchManager } from '../contracts/index.js';
import type { WatchEvent } from '../events.js';
import { gvrKey, namespacedNameKey, type GroupVersionResource } from '../gvr.js';
import type { CachedObject, InformerCache, PartialObjectMetadata } from '../informer.js';
import type { ObjectWrite, WriteRecorder } from '../passWrites.js';
import { resourceVersionAtLeast } from '../resourceVersionAtLeast.js';
import { parseSelector } from '../selector/parseSelector.js';
import type { CachedListOptions } from '../handler.js';
import type { ControllerObserver } from './ControllerObserver.js';
import { ObjectNotCachedError } from './ObjectNotCachedError.js';

/** What {@link ObjectReads} works with. */
export interface ObjectReadsDeps {
  readonly watchManager: WatchManager;
  readonly clock: Clock;
  /** How long a read waits for the cache to reach a write before it reads from the server instead. */
  readonly readYourWritesTimeoutMs: number;
  readonly notify: (call: (observer: ControllerObserver) => void) => void;
  /** What the GVR's informer does to each object it caches (core's `stripObject`, then the registration's transform): a read from the server gets the same. */
  readonly trimOf: (gvr: GroupVersionResource) => (obj: CachedObject) => CachedObject;
}

/** A write the cache had not reached when last looked at. */
interface Pending {
  readonly write: ObjectWrite;
  /** A read already waited for it in vain: later reads go to the server at once. */
  fellBack: boolean;
}

interface Waiter {
  readonly check: () => boolean;
  readonly resolve: (reached: boolean) => void;
}

const FIRST_PRUNE_AT = 1024;

/**
 * The handlers' reads from the object cache (`ctx.get`, `ctx.list`) with
 * read-your-writes: every write a pass reports ({@link WriteRecorder},
 * through core's `noteWrite`) is remembered per object until the cache has
 * reached it; a read of that object waits for the cache (woken by the
 * informer's events, up to `readYourWritesTimeoutMs`), then reads it from
 * the server instead and counts a fallback (`onCacheReadFallback`). A
 * pending write is settled by any event of its object at or past its
 * resourceVersion, whoever made it (a delete by someone else included),
 * so the pending writes are those the informer has not caught up with.
 * An object read from the server is trimmed and transformed as the
 * informer's are: a handler sees one shape whichever way it came.
 *
 * Easy to get wrong: returned objects are the cache's own; never modify
 * them (copy first: `structuredClone`).
 */
export class ObjectReads implements WriteRecorder {
  /** Writes the cache had not reached when last looked at: gvrKey -> `namespace/name` -> write. */
  private readonly pending = new Map<string, Map<string, Pending>>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly keys = new WeakMap<GroupVersionResource, string>();
  private waiting = 0;
  private size = 0;
  private pruneAt = FIRST_PRUNE_AT;

  constructor(private readonly deps: ObjectReadsDeps) {}

  record(write: ObjectWrite): void {
    // Only objects someone reads from the cache need remembering.
    if (this.deps.watchManager.getInformer(write.gvr)?.holdsObjects?.() !== true) return;
    const key = gvrKey(write.gvr);
    let byName = this.pending.get(key);
    if (byName === undefined) this.pending.set(key, (byName = new Map()));
    const name = namespacedNameKey(write);
    if (!byName.has(name)) this.size++;
    byName.set(name, { write, fellBack: false });
    if (this.size >= this.pruneAt) this.prune();
  }

  /**
   * The informer's event: settles a pending write of its object that it is
   * at or past, and wakes the reads waiting on its GVR (they look at the
   * cache again).
   */
  onEvent(event: WatchEvent): void {
    if (this.size === 0 && this.waiting === 0) return;
    const key = this.keyOf(event.gvr);
    if (this.size !== 0) this.settleBy(key, event);
    if (this.waiting === 0) return;
    const set = this.waiters.get(key);
    if (set === undefined) return;
    for (const w of set) if (w.check()) w.resolve(true);
  }

  /** Forgets the pending write of the event's object when the event is at or past it. */
  private settleBy(key: string, event: WatchEvent): void {
    const byName = this.pending.get(key);
    if (byName === undefined || event.resourceVersion === undefined) return;
    const pending = byName.get(namespacedNameKey(event));
    if (pending === undefined) return;
    const { write } = pending;
    // The pass deleted it: only its delete settles that (an update on the way may be older than the deletion).
    if (write.deleted === true) {
      if (event.type === 'delete') this.forget(write);
      return;
    }
    // A delete by someone else after the write settles it too (its resourceVersion is the deletion's); a late delete
    // of an older object the pass then created again does not (it is older than the write).
    if (resourceVersionAtLeast(event.resourceVersion, write.resourceVersion)) this.forget(write);
  }

  /** `gvrKey`, kept per GVR object (an informer's events share one). */
  private keyOf(gvr: GroupVersionResource): string {
    let key = this.keys.get(gvr);
    if (key === undefined) this.keys.set(gvr, (key = gvrKey(gvr)));
    return key;
  }

  async get<T extends PartialObjectMetadata>(
    gvr: GroupVersionResource,
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): Promise<T | undefined> {
    const cache = this.cacheOf(gvr);
    const key = namespacedNameKey({ namespace, name });
    const pending = this.pending.get(gvrKey(gvr))?.get(key);
    if (pending === undefined) return cache.get({ namespace, name }) as T | undefined;
    return (await this.settle(gvr, cache, [pending], signal)).get(key) as unknown as T | undefined;
  }

  async list<T extends PartialObjectMetadata>(gvr: GroupVersionResource, options: CachedListOptions, signal: AbortSignal): Promise<T[]> {
    const cache = this.cacheOf(gvr);
    const { namespace, index } = options;
    const selector = typeof options.labelSelector === 'string' ? parseSelector(options.labelSelector) : options.labelSelector;
    const value = options.value ?? '';
    const matches = (obj: PartialObjectMetadata): boolean =>
      (namespace === undefined || (obj.metadata.namespace ?? '') === namespace) &&
      (selector === undefined || selector.matches(obj.metadata.labels ?? {}));
    // The cache's candidates are in the index already; an object read from the server is looked up in it.
    const inIndex = (obj: PartialObjectMetadata): boolean =>
      index === undefined || cache.indexValues?.(index, obj as CachedObject)?.includes(value) === true;
    // The candidates: the index's entry for the value (no scan), else the namespace's objects, else all.
    const candidates = index === undefined ? cache.list(namespace) : cache.byIndex?.(index, value);
    if (candidates === undefined) throw new ObjectNotCachedError(gvr, index);
    const ofGvr = this.pending.get(gvrKey(gvr));
    const inScope =
      ofGvr === undefined ? [] : [...ofGvr.values()].filter((p) => namespace === undefined || p.write.namespace === namespace);
    const fetched = inScope.length === 0 ? undefined : await this.settle(gvr, cache, inScope, signal);
    const out: T[] = [];
    for (const obj of candidates) {
      const key = namespacedNameKey({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
      if (fetched?.has(key) === true) continue;
      if (matches(obj)) out.push(obj as unknown as T);
    }
    for (const obj of fetched?.values() ?? []) if (obj !== undefined && matches(obj) && inIndex(obj)) out.push(obj as unknown as T);
    return out;
  }

  /** The GVR's informer when it holds full objects. */
  private cacheOf(gvr: GroupVersionResource): InformerCache {
    const cache = this.deps.watchManager.getInformer(gvr);
    if (cache?.holdsObjects?.() !== true) throw new ObjectNotCachedError(gvr);
    return cache;
  }

  /**
   * Waits (up to the bound) for the cache to reach `writes`, forgetting
   * those it reached; reads the others from the server. Returns what the
   * server said of each write the cache is still behind on (`undefined`:
   * gone), and for a single write what to return for it.
   */
  private async settle(
    gvr: GroupVersionResource,
    cache: InformerCache,
    writes: readonly Pending[],
    signal: AbortSignal,
  ): Promise<Map<string, CachedObject | undefined>> {
    const behind = (): Pending[] => writes.filter((p) => !this.reached(cache, p));
    let left = behind();
    if (left.length > 0 && left.every((p) => !p.fellBack)) {
      await this.waitUntil(gvr, () => behind().length === 0, signal);
      left = behind();
    }
    const out = new Map<string, CachedObject | undefined>();
    if (writes.length === 1 && left.length === 0) {
      const w = writes[0]!.write;
      out.set(namespacedNameKey(w), cache.get(w) as CachedObject | undefined);
    }
    for (const p of left) {
      p.fellBack = true;
      this.deps.notify((o) => o.onCacheReadFallback?.(gvr));
      const fetched = await p.write.refetch(signal);
      // Freshly parsed and held by no one: trimmed and transformed in place, as the informer does its objects.
      out.set(namespacedNameKey(p.write), fetched === undefined ? undefined : this.deps.trimOf(gvr)(fetched));
    }
    return out;
  }

  /** True (and the write forgotten) when the cache holds the written version or a newer one. */
  private reached(cache: InformerCache, p: Pending): boolean {
    const { write } = p;
    const cached = cache.get(write);
    const done =
      write.deleted === true
        ? cached === undefined || (write.uid !== undefined && cached.metadata.uid !== write.uid)
        : cached !== undefined && resourceVersionAtLeast(cached.metadata.resourceVersion, write.resourceVersion);
    if (done) this.forget(write);
    return done;
  }

  private forget(write: ObjectWrite): void {
    const key = gvrKey(write.gvr);
    const byName = this.pending.get(key);
    const name = namespacedNameKey(write);
    if (byName?.get(name)?.write !== write) return;
    byName.delete(name);
    this.size--;
    if (byName.size === 0) this.pending.delete(key);
  }

  /** Resolves true once `check` holds after an event of `gvr`, false after the bound; rejects when `signal` aborts. */
  private waitUntil(gvr: GroupVersionResource, check: () => boolean, signal: AbortSignal): Promise<boolean> {
    signal.throwIfAborted();
    const key = gvrKey(gvr);
    return new Promise<boolean>((resolve, reject) => {
      const finish = (reached: boolean, err?: unknown): void => {
        if (!set.delete(waiter)) return;
        this.waiting--;
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        this.deps.clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (err === undefined) resolve(reached);
        else reject(err);
      };
      const onAbort = (): void => finish(false, signal.reason);
      const waiter: Waiter = { check, resolve: (reached) => finish(reached) };
      const set = this.waiters.get(key) ?? new Set<Waiter>();
      this.waiters.set(key, set);
      set.add(waiter);
      this.waiting++;
      // Declared after `finish`, which runs only later (the timer, an event or the abort).
      const timer: TimerHandle = this.deps.clock.setTimeout(() => finish(false), this.deps.readYourWritesTimeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Drops the writes the cache has reached, and those of GVRs no longer cached as objects. */
  private prune(): void {
    for (const [key, byName] of [...this.pending]) {
      const gvr = byName.values().next().value?.write.gvr;
      const cache = gvr === undefined ? undefined : this.deps.watchManager.getInformer(gvr);
      for (const p of [...byName.values()]) {
        if (cache?.holdsObjects?.() !== true) this.forget(p.write);
        else this.reached(cache, p);
      }
      if (byName.size === 0) this.pending.delete(key);
    }
    this.pruneAt = Math.max(FIRST_PRUNE_AT, this.size * 2);
  }
}
