import { gvrKey, type GroupVersionResource, type Selector, type WatchRequest } from '@protean/core';
import type { InstanceState } from './InstanceState.js';

/**
 * One accepted request of one instance, as the routing indexes hold it.
 * Internal to the package.
 */
export interface WatchEntry {
  /** The instance that declared it. */
  readonly instance: InstanceState;
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

/** Builds the entry of an already validated request. */
export function createWatchEntry(instance: InstanceState, req: WatchRequest): WatchEntry {
  const gvr = Object.freeze({ group: req.gvr.group, version: req.gvr.version, resource: req.gvr.resource });
  const key = gvrKey(gvr);
  const namespace = req.namespace ?? '';
  const selector = req.selector;
  if (selector === undefined) {
    const name = req.name ?? '';
    return {
      instance,
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
    instance,
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
