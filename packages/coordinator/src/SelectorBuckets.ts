import type { Selector } from '@protean/core';
import type { InstanceState } from './InstanceState.js';
import { SelectorGroup, type BucketPlan } from './SelectorGroup.js';
import type { WatchEntry } from './WatchEntry.js';

type Labels = Readonly<Record<string, string>>;

const hasOwn = Object.hasOwn;

/**
 * The collection requests of one GVR and one namespace filter. Requests
 * with equal selectors share a {@link SelectorGroup}; each group is bucketed
 * by the requirement {@link bucketPlan} chose: label key, then value (`In`);
 * label key (`Exists`); missing label key (`DoesNotExist`); or a scan list
 * for selectors with none of these. An event visits only the buckets its
 * labels select, so the cost follows the number of candidate selectors, not
 * of all watchers.
 * Internal to the package.
 */
export class SelectorBuckets {
  private readonly groups = new Map<string, SelectorGroup>();
  private readonly byLabel = new Map<string, Map<string, Set<SelectorGroup>>>();
  private readonly byKey = new Map<string, Set<SelectorGroup>>();
  private readonly byAbsentKey = new Map<string, Set<SelectorGroup>>();
  /** Keys of `byAbsentKey`, walked on every event without allocating an iterator entry. */
  private absentKeys: string[] = [];
  private readonly scan = new Set<SelectorGroup>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(entry: WatchEntry): void {
    let group = this.groups.get(entry.selectorKey);
    if (group === undefined) {
      group = new SelectorGroup(entry.selectorKey, entry.selector!, bucketPlan(entry.selector!));
      this.groups.set(entry.selectorKey, group);
      this.place(group);
    }
    group.add(entry);
    this.count++;
  }

  remove(entry: WatchEntry): void {
    const group = this.groups.get(entry.selectorKey);
    if (group === undefined || !group.delete(entry)) return;
    this.count--;
    if (group.size !== 0) return;
    this.groups.delete(group.text);
    this.unplace(group);
  }

  /**
   * Appends to `out` each instance with a selector matching `labels` or
   * `oldLabels` and not yet stamped with `stamp`.
   */
  collect(labels: Labels, oldLabels: Labels | undefined, stamp: number, out: InstanceState[]): void {
    this.collectBuckets(labels, stamp, out);
    // An object leaving a selector is found through the buckets of its old labels.
    // kro-diff: empty old labels are looked up too, so an object that had no labels (and matched `!key`) is
    // routed when it leaves that selector; kro tests old labels only when they are non-empty.
    if (oldLabels !== undefined) this.collectBuckets(oldLabels, stamp, out);
    for (const group of this.scan) group.collectEither(labels, oldLabels, stamp, out);
  }

  private collectBuckets(labels: Labels, stamp: number, out: InstanceState[]): void {
    if (this.byLabel.size !== 0 || this.byKey.size !== 0) {
      for (const key in labels) {
        const byValue = this.byLabel.get(key);
        if (byValue !== undefined) {
          const groups = byValue.get(labels[key]!);
          if (groups !== undefined) for (const group of groups) group.collect(labels, stamp, out);
        }
        const withKey = this.byKey.get(key);
        if (withKey !== undefined) for (const group of withKey) group.collect(labels, stamp, out);
      }
    }
    // Few distinct keys carry DoesNotExist selectors, so walking them is cheap.
    const absentKeys = this.absentKeys;
    for (let i = 0; i < absentKeys.length; i++) {
      const key = absentKeys[i]!;
      if (hasOwn(labels, key)) continue;
      for (const group of this.byAbsentKey.get(key)!) group.collect(labels, stamp, out);
    }
  }

  private place(group: SelectorGroup): void {
    const plan = group.plan;
    switch (plan.kind) {
      case 'label': {
        let byValue = this.byLabel.get(plan.key);
        if (byValue === undefined) {
          byValue = new Map();
          this.byLabel.set(plan.key, byValue);
        }
        for (const value of plan.values) addTo(byValue, value, group);
        break;
      }
      case 'key':
        addTo(this.byKey, plan.key, group);
        break;
      case 'absent':
        if (!this.byAbsentKey.has(plan.key)) this.absentKeys = [...this.absentKeys, plan.key];
        addTo(this.byAbsentKey, plan.key, group);
        break;
      case 'scan':
        this.scan.add(group);
        break;
      case 'never':
        break;
    }
  }

  private unplace(group: SelectorGroup): void {
    const plan = group.plan;
    switch (plan.kind) {
      case 'label': {
        const byValue = this.byLabel.get(plan.key);
        if (byValue === undefined) break;
        for (const value of plan.values) removeFrom(byValue, value, group);
        if (byValue.size === 0) this.byLabel.delete(plan.key);
        break;
      }
      case 'key':
        removeFrom(this.byKey, plan.key, group);
        break;
      case 'absent':
        removeFrom(this.byAbsentKey, plan.key, group);
        if (!this.byAbsentKey.has(plan.key)) this.absentKeys = this.absentKeys.filter((k) => k !== plan.key);
        break;
      case 'scan':
        this.scan.delete(group);
        break;
      case 'never':
        break;
    }
  }
}

function addTo<T>(map: Map<string, Set<T>>, key: string, item: T): void {
  let set = map.get(key);
  if (set === undefined) {
    set = new Set();
    map.set(key, set);
  }
  set.add(item);
}

function removeFrom<T>(map: Map<string, Set<T>>, key: string, item: T): void {
  const set = map.get(key);
  if (set !== undefined && set.delete(item) && set.size === 0) map.delete(key);
}

const SCAN: BucketPlan = Object.freeze({ kind: 'scan' });
const NEVER: BucketPlan = Object.freeze({ kind: 'never' });

/**
 * Picks the requirement an entry is bucketed by: an `In` with the fewest
 * values (a single-value `In` is `key=value`), else an `Exists`, else a
 * `DoesNotExist`; ties go to the first in canonical order. An object can
 * only match the selector if it satisfies that requirement, so visiting the
 * buckets the event's labels select never misses the entry.
 *
 * Easy to get wrong: the choice ignores how common a label value is, so a
 * set-based selector whose smallest `In` is on a low-cardinality key (say
 * `tier in (web,api)`) lands in a busy bucket.
 */
export function bucketPlan(selector: Selector): BucketPlan {
  if (selector.matchesNothing()) return NEVER;
  let best: { key: string; values: readonly string[] } | undefined;
  let exists: string | undefined;
  let absent: string | undefined;
  for (const r of selector.requirements()) {
    if (r.operator === 'In' && r.values.length > 0) {
      if (best === undefined || r.values.length < best.values.length) best = r;
    } else if (r.operator === 'Exists') {
      exists ??= r.key;
    } else if (r.operator === 'DoesNotExist') {
      absent ??= r.key;
    }
  }
  if (best !== undefined) return Object.freeze({ kind: 'label', key: best.key, values: best.values });
  if (exists !== undefined) return Object.freeze({ kind: 'key', key: exists });
  if (absent !== undefined) return Object.freeze({ kind: 'absent', key: absent });
  return SCAN;
}
