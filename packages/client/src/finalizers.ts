import type { GroupVersionResource } from '@protean/core';
import { KubeApiError } from './KubeApiError.js';
import type { KubeClient } from './KubeClient.js';
import type { RequestOptions, WriteOptions } from './KubeClientOptions.js';
import type { KubeObject, ObjectKey } from './KubeObject.js';

/** True when `object.metadata.finalizers` holds `finalizer`. */
export function hasFinalizer(object: KubeObject, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) === true;
}

/** True when the object is being deleted (`metadata.deletionTimestamp` is set): finalizers alone keep it. */
export function isBeingDeleted(object: KubeObject): boolean {
  const ts = object.metadata?.deletionTimestamp;
  return ts !== undefined && ts !== null && ts !== '';
}

/**
 * Adds `finalizer` to the object (controller-runtime's
 * `controllerutil.AddFinalizer` followed by an update), with optimistic
 * concurrency: a merge patch of the whole finalizer list carrying the
 * `resourceVersion` it was computed from, so a concurrent change of the
 * list is never overwritten; on 409 Conflict it reads the object again and
 * retries. Resolves with the stored object (no write when it is there
 * already). `object` is the last state you read, or just its key.
 *
 * Easy to get wrong: the API server refuses new finalizers on an object
 * that is being deleted (422); check {@link isBeingDeleted} first, or use
 * `reconcileFinalizer`, which does.
 */
export function addFinalizer<T extends KubeObject = KubeObject>(
  client: KubeClient,
  gvr: GroupVersionResource,
  object: T | ObjectKey,
  finalizer: string,
  options: WriteOptions = {},
): Promise<T> {
  return changeFinalizers<T>(client, gvr, object, options, (list) => (list.includes(finalizer) ? undefined : [...list, finalizer]));
}

/**
 * Removes `finalizer` from the object, with the same optimistic concurrency
 * as {@link addFinalizer}. Resolves with the stored object, or `undefined`
 * when the object is gone (removing the last finalizer of an object being
 * deleted lets the deletion complete, and a missing object has nothing to
 * remove).
 */
export async function removeFinalizer<T extends KubeObject = KubeObject>(
  client: KubeClient,
  gvr: GroupVersionResource,
  object: T | ObjectKey,
  finalizer: string,
  options: WriteOptions = {},
): Promise<T | undefined> {
  try {
    const stored = await changeFinalizers<T>(client, gvr, object, options, (list) =>
      list.includes(finalizer) ? list.filter((f) => f !== finalizer) : undefined,
    );
    return isBeingDeleted(stored) && (stored.metadata?.finalizers ?? []).length === 0 ? undefined : stored;
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) return undefined;
    throw err;
  }
}

async function changeFinalizers<T extends KubeObject>(
  client: KubeClient,
  gvr: GroupVersionResource,
  start: T | ObjectKey,
  options: WriteOptions,
  next: (current: readonly string[]) => string[] | undefined,
): Promise<T> {
  const key = keyOf(start);
  let current: T | undefined = 'metadata' in start && start.metadata?.resourceVersion !== undefined ? (start as T) : undefined;
  return client.onConflict(async () => {
    current ??= await client.get<T>(gvr, key, readOptions(options));
    const base = current;
    // A retry after a conflict starts from a fresh read.
    current = undefined;
    const list = next(base.metadata?.finalizers ?? []);
    if (list === undefined) return base;
    const patch = { metadata: { finalizers: list.length === 0 ? null : list, resourceVersion: base.metadata?.resourceVersion } };
    return client.patch<T>(gvr, key, patch, options);
  }, options.signal);
}

function keyOf(object: KubeObject | ObjectKey): ObjectKey {
  if ('name' in object && typeof object.name === 'string') return object;
  const meta = (object as KubeObject).metadata;
  if (meta?.name === undefined || meta.name === '')
    throw new TypeError('a finalizer change needs an object with metadata.name, or its key');
  return meta.namespace === undefined ? { name: meta.name } : { namespace: meta.namespace, name: meta.name };
}

function readOptions(options: RequestOptions): RequestOptions {
  return options.signal === undefined ? {} : { signal: options.signal };
}
