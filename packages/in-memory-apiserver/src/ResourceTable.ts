import type { ServedResource } from './ServedResource.js';
import type { KubeObject } from './types.js';

/** A committed change of one object, kept for watches and consistent pagination. */
export interface StoreEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The resourceVersion the change was committed at. */
  readonly rv: number;
  /** `namespace/name` (or `name`). */
  readonly key: string;
  /** The object after the change; for DELETED, its last state stamped with `rv`. */
  readonly object: KubeObject;
  /** The object before the change (absent for ADDED). */
  readonly prev?: KubeObject;
}

/** The storage key of an object: `namespace/name` for namespaced resources, `name` otherwise. */
export function objectKey(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The objects and recent history of one served resource.
 *
 * Easy to get wrong: stored objects are shared with the history and the
 * serialisation caches, so they must never be mutated once stored; every
 * write stores a new object.
 */
export class ResourceTable {
  private readonly objects = new Map<string, KubeObject>();
  private sorted: string[] = [];
  private sortedValid = true;
  private history: StoreEvent[] = [];
  private historyStart = 0;
  /** Events at or below this resourceVersion are forgotten. */
  private floor: number;

  /** `createdAtRv`: watches from an older resourceVersion get 410, as from a fresh watch cache. */
  constructor(
    public def: ServedResource,
    private readonly historyWindow: number,
    createdAtRv: number,
  ) {
    this.floor = createdAtRv;
  }

  get size(): number {
    return this.objects.size;
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  has(key: string): boolean {
    return this.objects.has(key);
  }

  put(key: string, obj: KubeObject): void {
    const isNew = !this.objects.has(key);
    this.objects.set(key, obj);
    if (!isNew || !this.sortedValid) return;
    const last = this.sorted[this.sorted.length - 1];
    // Appending in key order (the common bulk-create case) keeps the index sorted for free.
    if (last === undefined || last < key) this.sorted.push(key);
    else this.sortedValid = false;
  }

  remove(key: string): void {
    if (this.objects.delete(key)) this.sortedValid = false;
  }

  /** Keys in storage order (byte order of `namespace/name`), as etcd returns them. */
  sortedKeys(): readonly string[] {
    if (!this.sortedValid) {
      this.sorted = [...this.objects.keys()].sort();
      this.sortedValid = true;
    }
    return this.sorted;
  }

  /** Half-open index range of `sortedKeys()` holding namespace `ns` (all keys when undefined). */
  namespaceRange(ns: string | undefined): [number, number] {
    const keys = this.sortedKeys();
    if (ns === undefined || !this.def.namespaced) return [0, keys.length];
    // '0' is the character after '/', so [ns/, ns0) is exactly the namespace's keys.
    return [lowerBound(keys, `${ns}/`), lowerBound(keys, `${ns}0`)];
  }

  /** Index of the first key strictly after `key`. */
  indexAfter(key: string): number {
    const keys = this.sortedKeys();
    const i = lowerBound(keys, key);
    return keys[i] === key ? i + 1 : i;
  }

  /** Every stored object, in storage order. */
  values(): KubeObject[] {
    return this.sortedKeys().map((k) => this.objects.get(k) as KubeObject);
  }

  record(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length - this.historyStart > this.historyWindow) {
      const evicted = this.history[this.historyStart] as StoreEvent;
      this.floor = evicted.rv;
      this.historyStart++;
      if (this.historyStart >= 1024 && this.historyStart * 2 >= this.history.length) {
        this.history = this.history.slice(this.historyStart);
        this.historyStart = 0;
      }
    }
  }

  /** The oldest resourceVersion a watch can resume from. */
  oldestResumable(): number {
    return this.floor;
  }

  /** Forgets all history: only resourceVersions at or after `rv` stay resumable. */
  forgetHistory(rv: number): void {
    this.history = [];
    this.historyStart = 0;
    this.floor = rv;
  }

  /** Events committed after `rv`, oldest first; the caller checks `rv >= oldestResumable()`. */
  eventsAfter(rv: number): StoreEvent[] {
    let lo = this.historyStart;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.history[mid] as StoreEvent).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo);
  }
}
