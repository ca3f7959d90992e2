import type { GroupVersionResource } from '../gvr.js';
import type { Selector } from '../selector/Selector.js';

/**
 * A resource an instance wants to be reconciled on. With `selector` it is a
 * collection watch (optionally limited to `namespace`; empty = all
 * namespaces); otherwise a scalar watch of `namespace`/`name`.
 */
export interface WatchRequest {
  /** Identifies the request within its instance (a graph node id in kro). */
  readonly nodeId: string;
  readonly gvr: GroupVersionResource;
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: Selector;
}
