import { gvrKey, type GroupVersionResource, type Selector, type WatchRequest } from '@protean/core';
import type { InstanceState } from './InstanceState.js';

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

/**
 * One accepted request of one instance, as the routing indexes hold it.
 * Internal to the package.
 */
export interface WatchEntry {
  readonly owner: InstanceState;
  readonly nodeId: string;
  readonly gvr: GroupVersionResource;
  readonly gvrKey: string;
  /** Object namespace (scalar) or namespace filter ("" = all namespaces) (collection). */
  readonly namespace: string;
  /** Object name; "" for a collection entry. */
  readonly name: string;
  /** Set for a collection entry. */
  readonly selector: Selector | undefined;
  /** Canonical selector string (a marker for `Nothing`); "" for a scalar entry. */
  readonly selectorKey: string;
  /**
   * Canonical identity of what is watched: two requests of one node with
   * equal targets are the same watch.
   */
  readonly target: string;
  /** True while the entry is in the routing indexes. */
  indexed: boolean;
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

/** Builds the entry of an already validated request. */
export function createWatchEntry(owner: InstanceState, req: WatchRequest): WatchEntry {
  const gvr = Object.freeze({ group: req.gvr.group, version: req.gvr.version, resource: req.gvr.resource });
  const key = gvrKey(gvr);
  const namespace = req.namespace ?? '';
  const selector = req.selector;
  if (selector === undefined) {
    const name = req.name ?? '';
    return {
      owner,
      nodeId: req.nodeId,
      gvr,
      gvrKey: key,
      namespace,
      name,
      selector,
      selectorKey: '',
      target: `s\u0000${key}\u0000${namespace}\u0000${name}`,
      indexed: false,
    };
  }
  // A NUL never appears in a selector's canonical string, so Nothing cannot collide.
  const selectorKey = selector.matchesNothing() ? '\u0000nothing' : selector.toString();
  return {
    owner,
    nodeId: req.nodeId,
    gvr,
    gvrKey: key,
    namespace,
    name: '',
    selector,
    selectorKey,
    target: `c\u0000${key}\u0000${namespace}\u0000${selectorKey}`,
    indexed: false,
  };
}
