import { ObjectNotCachedError, type ReconcileContext } from '../index.js';

/**
 * The cached reads of a `ReconcileContext` built by hand in a test, for a
 * handler that reads nothing from the object cache: `get` and `list`
 * reject with `ObjectNotCachedError`, as the controller's do for a GVR no
 * registration caches. Spread it: `{ signal, logger, gvr, watcher, ...noObjectCache }`.
 */
export const noObjectCache: Pick<ReconcileContext, 'get' | 'list'> = Object.freeze({
  get: (gvr) => Promise.reject(new ObjectNotCachedError(gvr)),
  list: (gvr) => Promise.reject(new ObjectNotCachedError(gvr)),
});
