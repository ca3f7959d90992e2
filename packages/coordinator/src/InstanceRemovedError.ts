/**
 * `InstanceWatcher.watch` was called on a watcher whose instance has since
 * been removed (`removeInstance` / `removeParentGVR`), typically by a
 * reconcile that was still running when its instance was deleted.
 *
 * Easy to get wrong: the watcher does not re-create the removed instance's
 * state, which would keep watches alive for an instance that no longer
 * exists. Obtain a new watcher with `forInstance` to start over.
 */
export class InstanceRemovedError extends Error {
  override readonly name = 'InstanceRemovedError';
  readonly instance: string;
  readonly nodeId: string;

  constructor(instance: string, nodeId: string) {
    super(
      `instance ${instance} was removed from the watch coordinator; node ${JSON.stringify(nodeId)} cannot be watched through a watcher obtained before the removal`,
    );
    this.instance = instance;
    this.nodeId = nodeId;
  }
}
