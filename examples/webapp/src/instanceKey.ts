import { gvrKey, type GroupVersionResource } from '@protean/core';

/** An object's place: namespace and name. */
export interface Ref {
  readonly namespace: string;
  readonly name: string;
}

/** The key under which latencies and reconciles of one instance are tracked. */
export function instanceKey(gvr: GroupVersionResource, ref: Ref): string {
  return `${gvrKey(gvr)}|${ref.namespace}/${ref.name}`;
}
