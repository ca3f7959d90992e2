/**
 * A {@link WatchRequest} the coordinator cannot accept: no target, two
 * targets (name and selector), a missing `nodeId`, or a GVR, namespace or
 * name that breaks Kubernetes' naming rules (then `cause` is core's
 * `InvalidGroupVersionResourceError` or `InvalidObjectNameError`). The
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

  /** `options.cause`: the naming-rule error of core behind the problem, if any. */
  constructor(instance: string, nodeId: string, problem: string, options?: ErrorOptions) {
    super(`invalid watch request from instance ${instance}, node ${JSON.stringify(nodeId)}: ${problem}`, options);
    this.instance = instance;
    this.nodeId = nodeId;
  }
}
