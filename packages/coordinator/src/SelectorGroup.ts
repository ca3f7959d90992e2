import type { Selector } from '@protean/core';
import type { InstanceState } from './InstanceState.js';
import type { WatchEntry } from './WatchEntry.js';

/**
 * Where a selector group sits in its namespace's buckets:
 * under each value of an `In` requirement, under the key of an `Exists`
 * requirement, under the key of a `DoesNotExist` requirement (visited only
 * by events lacking that label), in the scan list (only `NotIn`
 * requirements, or none), or nowhere (a selector that matches nothing never
 * routes).
 */
export type BucketPlan =
  | { readonly kind: 'label'; readonly key: string; readonly values: readonly string[] }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'absent'; readonly key: string }
  | { readonly kind: 'scan' }
  | { readonly kind: 'never' };

type Labels = Readonly<Record<string, string>>;

/**
 * The entries of one namespace bucket that share a selector (equal
 * canonical strings), so an event evaluates that selector once however many
 * instances asked for it. Internal to the package.
 */
export class SelectorGroup {
  private readonly members = new Set<WatchEntry>();
  /**
   * The instance of the only member when there is exactly one (the common
   * case): routing then skips the set and the entry, one pointer hop each.
   */
  private singleOwner: InstanceState | undefined;

  constructor(
    readonly text: string,
    readonly selector: Selector,
    readonly plan: BucketPlan,
  ) {}

  get size(): number {
    return this.members.size;
  }

  add(entry: WatchEntry): void {
    this.members.add(entry);
    this.singleOwner = this.members.size === 1 ? entry.instance : undefined;
  }

  delete(entry: WatchEntry): boolean {
    if (!this.members.delete(entry)) return false;
    this.singleOwner = this.members.size === 1 ? this.members.values().next().value!.instance : undefined;
    return true;
  }

  /** Appends each member's instance not yet stamped with `stamp` when the selector matches `labels`. */
  collect(labels: Labels, stamp: number, out: InstanceState[]): void {
    const owner = this.singleOwner;
    if (owner !== undefined) {
      if (owner.routedStamp !== stamp && this.selector.matches(labels)) {
        owner.routedStamp = stamp;
        out.push(owner);
      }
      return;
    }
    if (this.anyUnstamped(stamp) && this.selector.matches(labels)) this.push(stamp, out);
  }

  /** Like {@link collect}, matching `labels` or `oldLabels`. */
  collectEither(labels: Labels, oldLabels: Labels | undefined, stamp: number, out: InstanceState[]): void {
    if (!this.anyUnstamped(stamp)) return;
    if (this.selector.matches(labels) || (oldLabels !== undefined && this.selector.matches(oldLabels))) this.push(stamp, out);
  }

  private anyUnstamped(stamp: number): boolean {
    for (const entry of this.members) if (entry.instance.routedStamp !== stamp) return true;
    return false;
  }

  private push(stamp: number, out: InstanceState[]): void {
    for (const entry of this.members) {
      const owner = entry.instance;
      if (owner.routedStamp !== stamp) {
        owner.routedStamp = stamp;
        out.push(owner);
      }
    }
  }
}
