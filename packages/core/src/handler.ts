import type { InstanceWatcher } from './contracts/index.js';
import type { GroupVersionResource, NamespacedName } from './gvr.js';
import type { CachedObject, PartialObjectMetadata } from './informer.js';
import type { Logger } from './logger.js';
import type { Selector } from './selector/Selector.js';

/** Which objects `ctx.list` returns. */
export interface CachedListOptions {
  /** Only this namespace (`""`: cluster-scoped objects); default every namespace. */
  readonly namespace?: string;
  /** Only objects whose labels match: a selector string (`app=web,tier in (a,b)`) or a parsed `Selector`. */
  readonly labelSelector?: string | Selector;
  /**
   * Only the objects a secondary index files under {@link value}, found
   * without a scan: `owner` (owner reference uids) and `namespace`, built
   * in, or an index
   * the registration declared (`cache: [{ gvr, indexes }]`). An index
   * nothing declared rejects with an `ObjectNotCachedError`.
   */
  readonly index?: string;
  /** The value looked up in {@link index}. */
  readonly value?: string;
}

/** What a {@link Handler} gets besides the instance it reconciles. */
export interface ReconcileContext {
  /**
   * Aborts when the controller shuts down or when the pass runs longer than
   * the config's `reconcileTimeoutMs` (reason: a `ReconcileTimeoutError`);
   * pass it to every API call.
   */
  readonly signal: AbortSignal;
  /** A child logger carrying the parent GVR and the instance. */
  readonly logger: Logger;
  /** The parent resource type this instance belongs to. */
  readonly gvr: GroupVersionResource;
  /**
   * This instance's watcher (`coordinator().forInstance(gvr, req)`), settled
   * for you: a cycle the handler leaves open is committed (`done(true)`) when
   * it succeeds or rejects with a requeue signal, and discarded
   * (`done(false)`) when it fails. Call `done` yourself to decide otherwise.
   */
  readonly watcher: InstanceWatcher;
  /**
   * Reads one object from the object cache: `undefined` when it does not
   * exist. Only for GVRs a registration caches as full objects
   * (`register(parent, handler, { cache: [gvr] })`); any other rejects
   * with an `ObjectNotCachedError`. Reads your writes: after a write made
   * with `ctx.signal` through `@protean/client` (or reported with
   * `noteWrite`), it never returns an older version of that object, in
   * this pass or a later one; it waits for the cache up to the config's
   * `readYourWritesTimeoutMs`, then reads from the server instead.
   *
   * Easy to get wrong: the object is the cache's own; never modify it
   * (copy it first). `T` is asserted, not checked.
   */
  get<T extends PartialObjectMetadata = CachedObject>(gvr: GroupVersionResource, namespace: string, name: string): Promise<T | undefined>;
  /**
   * Lists objects of a cached GVR from the object cache, in one namespace
   * or all, matching a label selector or all; reads your writes as
   * {@link get} does. Rejects with an `ObjectNotCachedError` for a GVR no
   * registration caches as full objects.
   */
  list<T extends PartialObjectMetadata = CachedObject>(gvr: GroupVersionResource, options?: CachedListOptions): Promise<T[]>;
}

/**
 * Reconciles one instance of a registered parent GVR (seed: `Handler`).
 * Resolve for success; reject with a requeue signal (`requeue.*`) to steer
 * the retry, or with any other error to be retried with backoff. A handler
 * must fetch the instance itself: it may have been deleted (a NotFound error
 * is treated as success).
 */
export type Handler = (req: NamespacedName, ctx: ReconcileContext) => Promise<void>;
