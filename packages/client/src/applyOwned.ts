import type { GroupVersionResource, InstanceWatcher, PartialObjectMetadata, ReconcileContext } from '@protean/core';
import type { KubeClient } from './KubeClient.js';
import type { ApplyOptions } from './KubeClientOptions.js';
import type { KubeObject, Stored } from './KubeObject.js';
import { setControllerReference } from './setControllerReference.js';

/** Options of {@link applyOwned}. */
export interface ApplyOwnedOptions extends ApplyOptions {
  /** The dependency's name within the instance (`ctx.watcher.watch`'s `nodeId`). */
  readonly nodeId: string;
  /**
   * Read the stored child from the object cache (pass `ctx`) instead of
   * GETting it: for a child GVR the registration caches
   * (`register(parent, handler, { cache: [gvr] })`). Default: a GET.
   */
  readonly cache?: Pick<ReconcileContext, 'get'>;
}

/**
 * The usual way a handler writes a child, in the right order: declares the
 * watch on it (`watcher.watch`, so a later change or deletion of the child
 * reconciles the owner, and none made meanwhile is missed), reads the
 * stored child and makes `owner` its controller ({@link setControllerReference}
 * with `live`; from the object cache with `cache: ctx`), then applies it
 * (server-side apply, see `KubeClient.apply`).
 * Resolves with the stored child.
 *
 * Rejects with `AlreadyOwnedError` (naming the other controller's kind,
 * name and uid) before writing anything when the stored child has another
 * controller, `force` or not: the API server would refuse a second
 * controller reference (422), and `force` takes fields, not ownership.
 *
 * Easy to get wrong: pass `ctx.watcher`, the pass's own watcher; and
 * `child` must name itself (`metadata.name`, `metadata.namespace`). Another
 * controller taking the child between the read and the write is still
 * refused, by the server, as a 422 `KubeApiError`.
 */
export async function applyOwned<T extends KubeObject>(
  client: KubeClient,
  watcher: InstanceWatcher,
  gvr: GroupVersionResource,
  owner: KubeObject,
  child: T,
  options: ApplyOwnedOptions,
): Promise<Stored<T>> {
  const { nodeId, cache, ...apply } = options;
  const name = child.metadata?.name;
  if (name === undefined || name === '') throw new TypeError(`applyOwned(${nodeId}) needs a child with metadata.name`);
  const namespace = child.metadata?.namespace;
  const key = namespace === undefined || namespace === '' ? { name } : { namespace, name };
  await watcher.watch({ nodeId, gvr, ...key });
  const live =
    cache === undefined
      ? await client.find(gvr, key, apply.signal === undefined ? {} : { signal: apply.signal })
      : ((await cache.get<PartialObjectMetadata>(gvr, key.namespace ?? '', name)) as KubeObject | undefined);
  return client.apply(gvr, setControllerReference(owner, child, { live }), apply);
}
