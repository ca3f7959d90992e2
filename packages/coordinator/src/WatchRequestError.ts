/**
 * A {@link WatchRequest} the coordinator cannot accept: no target, two
 * targets (name and selector), a missing `nodeId` or an incomplete GVR. The
 * message names the instance, the node and what is wrong.
 *
 * Easy to get wrong: `InstanceWatcher.watch` reports it as a rejected
 * promise, never as a synchronous throw, so an un-awaited `watch` hides it.
 */
export class WatchRequestError extends Error {
  override readonly name = 'WatchRequestError';
  /** `parentGVR namespace/name` of the instance that made the request. */
  readonly instance: string;
  /** The request's `nodeId` (`<none>` when it was missing). */
  readonly nodeId: string;

  constructor(instance: string, nodeId: string, problem: string) {
    super(`invalid watch request from instance ${instance}, node ${JSON.stringify(nodeId)}: ${problem}`);
    this.instance = instance;
    this.nodeId = nodeId;
  }
}
