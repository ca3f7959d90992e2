import type { GroupVersionResource } from './gvr.js';
import { RequeueNeeded } from './requeue.js';

/**
 * A write refused by the API server (409 Conflict) because the object
 * changed after the pass read it: the write carried the resourceVersion
 * the pass read as a precondition (`@protean/client` adds it to a write
 * made with the pass's `ctx.signal` to an object the pass read). Either
 * another writer got there first (a successor of a replica woken past its
 * lease, whose stale write this fences off), or the cache the pass read
 * from was behind. A requeue signal: the pass runs again at once, on what
 * the cache holds then, and no failure is counted.
 */
export class StaleReadError extends RequeueNeeded {
  override readonly name: string = 'StaleReadError';
  readonly gvr: GroupVersionResource;
  readonly namespace: string;
  readonly objectName: string;
  /** The resourceVersion the pass read and sent as the precondition. */
  readonly readVersion: string;

  constructor(action: string, gvr: GroupVersionResource, namespace: string, name: string, readVersion: string, cause: unknown) {
    super(cause, `${action} refused: the object changed after this pass read it at resourceVersion ${readVersion}`);
    this.gvr = gvr;
    this.namespace = namespace;
    this.objectName = name;
    this.readVersion = readVersion;
  }
}
