import type { EnqueueFunc, EventHandler, WatchEvent } from './events.js';
import type { GroupVersionResource, NamespacedName } from './gvr.js';
import type { Informer, InformerSource } from './informer.js';
import type { Logger } from './logger.js';
import type { Selector } from './selector/Selector.js';

/**
 * Owner-counted informers, one per GVR (implemented by `WatchManager` in
 * `@protean/watch-manager`).
 */
export interface WatchRegistry {
  /**
   * Adds `ownerId` to the owners of `gvr`, starting its informer if needed,
   * and resolves once the informer has synced. On failure only `ownerId` is
   * dropped and the promise rejects with an error naming the GVR.
   */
  ensureWatch(gvr: GroupVersionResource, ownerId: string): Promise<void>;
  /** Drops `ownerId`; the informer stops when no owner remains. */
  releaseWatch(gvr: GroupVersionResource, ownerId: string): void;
  getInformer(gvr: GroupVersionResource): Informer | undefined;
  activeWatchCount(): number;
  shutdown(): void;
}

/** Everything a watch registry factory gets from the container. */
export interface WatchRegistryDeps {
  readonly source: InformerSource;
  readonly resyncPeriodMs: number;
  readonly onEvent: EventHandler;
  readonly logger: Logger;
}

/** Builds the controller's watch registry once its event callback exists. */
export type WatchRegistryFactory = (deps: WatchRegistryDeps) => WatchRegistry;

/**
 * A resource an instance wants to be reconciled on. With `selector` it is a
 * collection watch (optionally limited to `namespace`; empty = all
 * namespaces); otherwise a scalar watch of `namespace`/`name`.
 */
export interface WatchRequest {
  /** Identifies the request within its instance (a graph node id in kro). */
  readonly nodeId: string;
  readonly gvr: GroupVersionResource;
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: Selector;
}

/**
 * Scoped to one instance: declares, reconcile by reconcile, which resources
 * it depends on. Call `watch` before touching the resource, then `done`.
 */
export interface InstanceWatcher {
  watch(req: WatchRequest): Promise<void>;
  /** `true` commits this cycle's set; `false` keeps the last committed set. */
  done(commit: boolean): void;
}

/**
 * One reconcile pass of an instance (the handler's `ctx.watcher`), ended by
 * the controller from the handler's outcome.
 */
export interface InstancePass extends InstanceWatcher {
  /**
   * Ends the pass. If the instance's cycle was settled during the pass (by
   * this or any other watcher of the instance) and nothing was declared
   * after that, the pass is left as the handler settled it. Otherwise
   * `commit` true makes exactly what the pass declared, possibly nothing,
   * the committed set, and `false` keeps the previous set.
   */
  end(commit: boolean): void;
}

/** Routes child events to instances (implemented by `WatchCoordinator`). */
export interface EventRouter {
  routeEvent(event: WatchEvent): void;
  forInstance(parentGVR: GroupVersionResource, instance: NamespacedName): InstanceWatcher;
  /** Starts a reconcile pass of the instance; the controller calls it once per handler call. */
  beginPass(parentGVR: GroupVersionResource, instance: NamespacedName): InstancePass;
  removeInstance(parentGVR: GroupVersionResource, instance: NamespacedName): void;
  removeParentGVR(parentGVR: GroupVersionResource): void;
  instanceWatchCount(): number;
  watchRequestCount(): { scalar: number; collection: number };
}

/** Everything an event router factory gets from the container. */
export interface EventRouterDeps {
  readonly watches: WatchRegistry;
  readonly enqueue: EnqueueFunc;
  readonly logger: Logger;
}

/** Builds the controller's event router. */
export type EventRouterFactory = (deps: EventRouterDeps) => EventRouter;

/** Result of {@link WorkQueue.get}. */
export type QueueGetResult<T> = { readonly item: T; readonly shutdown: false } | { readonly shutdown: true };

/**
 * client-go `workqueue.Interface`: FIFO with a dirty set and a processing
 * set. An item added while queued collapses; an item added while processing
 * is queued again exactly once on `done`, so no two workers hold one key.
 */
export interface WorkQueue<T> {
  add(item: T): void;
  /** Queued items only (not those being processed). */
  len(): number;
  get(): Promise<QueueGetResult<T>>;
  done(item: T): void;
  /** Stops accepting adds; queued items are still handed out. */
  shutdown(): void;
  /** Like `shutdown`, then waits until every handed-out item is done. */
  shutdownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
}

/** client-go `DelayingInterface`. */
export interface DelayingQueue<T> extends WorkQueue<T> {
  /** `delayMs <= 0` adds now; a pending item re-added keeps the earlier ready time. */
  addAfter(item: T, delayMs: number): void;
}

/** client-go `RateLimitingInterface`. */
export interface RateLimitingQueue<T> extends DelayingQueue<T> {
  addRateLimited(item: T): void;
  forget(item: T): void;
  numRequeues(item: T): number;
}

/** client-go `RateLimiter`: how long an item waits before its next try. */
export interface RateLimiter<T> {
  when(item: T): number;
  forget(item: T): void;
  numRequeues(item: T): number;
}

/** Options the controller passes when it builds its queue. */
export interface WorkQueueOptions<T> {
  /** Identity of an item: two items with one key are the same item. */
  readonly key: (item: T) => string;
  /** Name for metrics and logs. */
  readonly name: string;
  /** Retry backoff and overall rate; the factory builds its limiter from them. */
  readonly limits?: RateLimits;
  /** A ready-made limiter; takes precedence over `limits`. */
  readonly rateLimiter?: RateLimiter<T>;
}

/**
 * The controller's rate limits: per-item exponential backoff from
 * `minRetryDelayMs` to `maxRetryDelayMs`, and a global token bucket of `qps`
 * with `burst` (client-go's default controller limiter shape).
 */
export interface RateLimits {
  readonly minRetryDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly qps: number;
  readonly burst: number;
}

/** Builds work queues; rebind its token to plug in another queue. */
export type WorkQueueFactory = <T>(options: WorkQueueOptions<T>) => RateLimitingQueue<T>;
