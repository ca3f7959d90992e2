import type { GroupVersionResource, InstanceWatcher } from '@protean/core';
import type { KubeClient } from './KubeClient.js';
import type { ApplyOptions } from './KubeClientOptions.js';
import type { KubeObject, Stored } from './KubeObject.js';
import { setControllerReference } from './setControllerReference.js';

/** Options of {@link applyOwned}. */
export interface ApplyOwnedOptions extends ApplyOptions {
  /** The dependency's name within the instance (`ctx.watcher.watch`'s `nodeId`). */
  readonly nodeId: string;
}

/**
 * The usual way a handler writes a child, in the right order: declares the
 * watch on it (`watcher.watch`, so a later change or deletion of the child
 * reconciles the owner, and none made meanwhile is missed), makes `owner`
 * its controller ({@link setControllerReference}), then applies it
 * (server-side apply, see `KubeClient.apply`). Resolves with the stored child.
 *
 * Easy to get wrong: pass `ctx.watcher`, the pass's own watcher; and
 * `child` must name itself (`metadata.name`, `metadata.namespace`).
 */
export async function applyOwned<T extends KubeObject>(
  client: KubeClient,
  watcher: InstanceWatcher,
  gvr: GroupVersionResource,
  owner: KubeObject,
  child: T,
  options: ApplyOwnedOptions,
): Promise<Stored<T>> {
  const { nodeId, ...apply } = options;
  const name = child.metadata?.name;
  if (name === undefined || name === '') throw new TypeError(`applyOwned(${nodeId}) needs a child with metadata.name`);
  const namespace = child.metadata?.namespace;
  await watcher.watch({ nodeId, gvr, name, ...(namespace === undefined || namespace === '' ? {} : { namespace }) });
  return client.apply(gvr, setControllerReference(owner, child), apply);
}
