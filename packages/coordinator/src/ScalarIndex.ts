import type { InstanceState } from './InstanceState.js';
import type { WatchEntry } from './WatchEntry.js';

/** The watchers of one object: usually one entry, a set when shared. */
type Watchers = WatchEntry | Set<WatchEntry>;

/**
 * Scalar requests of one GVR by namespace, then name: routing an event is
 * two map lookups, whatever the number of watched objects.
 * Internal to the package.
 */
export class ScalarIndex {
  // Nested maps rather than a "ns/name" key: routing builds no string.
  private readonly byNamespace = new Map<string, Map<string, Watchers>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(entry: WatchEntry): void {
    let byName = this.byNamespace.get(entry.namespace);
    if (byName === undefined) {
      byName = new Map();
      this.byNamespace.set(entry.namespace, byName);
    }
    const watchers = byName.get(entry.name);
    if (watchers === undefined) byName.set(entry.name, entry);
    else if (watchers instanceof Set) watchers.add(entry);
    else if (watchers !== entry) byName.set(entry.name, new Set([watchers, entry]));
    this.count++;
  }

  remove(entry: WatchEntry): void {
    const byName = this.byNamespace.get(entry.namespace);
    const watchers = byName?.get(entry.name);
    if (byName === undefined || watchers === undefined) return;
    if (watchers instanceof Set) {
      if (!watchers.delete(entry)) return;
      if (watchers.size === 1) byName.set(entry.name, watchers.values().next().value!);
    } else {
      if (watchers !== entry) return;
      byName.delete(entry.name);
    }
    this.count--;
    if (byName.size === 0) this.byNamespace.delete(entry.namespace);
  }

  /** Appends to `out` each instance watching `namespace/name` not yet stamped with `stamp`. */
  collect(namespace: string, name: string, stamp: number, out: InstanceState[]): void {
    const watchers = this.byNamespace.get(namespace)?.get(name);
    if (watchers === undefined) return;
    if (watchers instanceof Set) {
      for (const entry of watchers) stampInto(entry.instance, stamp, out);
    } else {
      stampInto(watchers.instance, stamp, out);
    }
  }
}

function stampInto(owner: InstanceState, stamp: number, out: InstanceState[]): void {
  if (owner.routedStamp !== stamp) {
    owner.routedStamp = stamp;
    out.push(owner);
  }
}
