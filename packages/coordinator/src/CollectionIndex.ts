import type { WatchEvent } from '@protean/core';
import type { InstanceState } from './InstanceState.js';
import { SelectorBuckets } from './SelectorBuckets.js';
import type { WatchEntry } from './WatchEntry.js';

/**
 * Collection requests of one GVR, split by namespace filter (an exact
 * namespace, or "" for all namespaces) and then bucketed by selector
 * requirement ({@link SelectorBuckets}).
 *
 * kro-diff: an event meets only the collection requests of its own namespace
 * and of all namespaces whose indexed requirement its labels satisfy, so
 * routing costs about the number of candidate selectors rather than of
 * watchers; kro tests every collection request of the GVR on every event.
 *
 * Internal to the package.
 */
export class CollectionIndex {
  private readonly byNamespace = new Map<string, SelectorBuckets>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(entry: WatchEntry): void {
    let buckets = this.byNamespace.get(entry.namespace);
    if (buckets === undefined) {
      buckets = new SelectorBuckets();
      this.byNamespace.set(entry.namespace, buckets);
    }
    buckets.add(entry);
    this.count++;
  }

  remove(entry: WatchEntry): void {
    const buckets = this.byNamespace.get(entry.namespace);
    if (buckets === undefined) return;
    buckets.remove(entry);
    this.count--;
    if (buckets.size === 0) this.byNamespace.delete(entry.namespace);
  }

  /** Appends to `out` each matching instance not yet stamped with `stamp`. */
  collect(event: WatchEvent, stamp: number, out: InstanceState[]): void {
    if (this.count === 0) return;
    const labels = event.labels;
    const oldLabels = event.oldLabels;
    // A namespaced filter never matches a cluster-scoped object (namespace "").
    if (event.namespace !== '') this.byNamespace.get(event.namespace)?.collect(labels, oldLabels, stamp, out);
    this.byNamespace.get('')?.collect(labels, oldLabels, stamp, out);
  }
}
