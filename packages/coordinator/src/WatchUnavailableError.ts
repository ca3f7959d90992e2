import { gvrKey, type GroupVersionResource } from '@protean/core';

/**
 * `InstanceWatcher.watch` could not get a synced informer for the requested
 * GVR (the watch manager rejected: unknown resource, no permission, sync
 * timeout). `cause` is the watch manager's error.
 *
 * Easy to get wrong: when it is raised, the coordinator has already dropped
 * every request for that GVR that was waiting on the same sync (they all
 * fail together); re-requesting later starts a fresh attempt.
 */
export class WatchUnavailableError extends Error {
  override readonly name = 'WatchUnavailableError';
  readonly instance: string;
  readonly nodeId: string;
  readonly gvr: GroupVersionResource;

  constructor(instance: string, nodeId: string, gvr: GroupVersionResource, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`cannot watch ${gvrKey(gvr)} for instance ${instance}, node ${JSON.stringify(nodeId)}: ${detail}`, { cause });
    this.instance = instance;
    this.nodeId = nodeId;
    this.gvr = gvr;
  }
}
