import { inject, injectable, optional } from 'inversify';
import { errorMessage } from './apiStatus.js';
import { realClock, type Clock } from './clock.js';
import { resolveConfig, type Config } from './config.js';
import type {
  Leadership,
  Validity,
  WatchCoordinator,
  WatchCoordinatorFactory,
  RateLimitingQueue,
  WatchManager,
  WatchManagerFactory,
  WorkQueueFactory,
} from './contracts/index.js';
import { noopControllerObserver, type ControllerObserver } from './controller/ControllerObserver.js';
import { ControllerStateError, type ControllerState } from './controller/ControllerStateError.js';
import type { ControllerStatus, ExplainTarget, Explanation, QueueStatus } from './controller/ControllerStatus.js';
import { buildControllerStatus, buildQueueStatus } from './controller/buildControllerStatus.js';
import { explainRouting } from './controller/explainRouting.js';
import type { DynamicControllerOptions } from './controller/DynamicControllerOptions.js';
import { ParentSyncError } from './controller/ParentSyncError.js';
import { notifyObserver } from './controller/notifyObserver.js';
import { PassCancelledError } from './controller/PassCancelledError.js';
import { ShutdownTimeoutError } from './controller/ShutdownTimeoutError.js';
import { TermQueues } from './controller/TermQueues.js';
import { workItemKey } from './controller/workItemKey.js';
import { WorkerActivity } from './controller/WorkerActivity.js';
import { WorkerPool, type ParentHandler } from './controller/WorkerPool.js';
import type { WatchEvent } from './events.js';
import { gvrKey, type GroupVersionResource, type ObjectIdentifiers } from './gvr.js';
import { validateGroupVersionResource } from './gvrValidation.js';
import type { Handler } from './handler.js';
import type { Informer, InformerSource } from './informer.js';
import { createLogger, type Logger } from './logger.js';
import { LogSummarizer } from './LogSummarizer.js';
import { TOKENS } from './tokens.js';

/** Owner id of a parent watch in the watch manager (children use the coordinator's ids). */
function parentOwnerId(gvr: GroupVersionResource): string {
  return `parent:${gvrKey(gvr)}`;
}

/**
 * One controller reconciling instances of many parent GVRs, registered and
 * deregistered at runtime (seed: `DynamicController`). It owns the parent
 * watches, one work queue keyed by GVR + instance, and `config.workers`
 * workers; child watches belong to the watch coordinator ({@link DynamicController.watchCoordinator}),
 * which instance handlers feed through `forInstance(...)`.
 *
 * Lifecycle: `start(signal)` once, `register` parents while it runs, abort
 * the signal to stop. A controller runs once: `start` after a shutdown
 * rejects (build a new controller instead), because the queue and the
 * informers it shut down cannot be reused.
 *
 * With a {@link Leadership} (`TOKENS.leadership`, e.g. `@protean/leader-election`),
 * informers, registration and the queue work on every replica, but the
 * workers run only while this replica leads; see {@link DynamicController.isLeading}.
 *
 * Easy to get wrong: `register` rejects until `start` was called, so call
 * `start` without awaiting it (it resolves only at shutdown).
 */
@injectable()
export class DynamicController {
  private readonly config: Config;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly observer: ControllerObserver;
  private readonly queue: RateLimitingQueue<ObjectIdentifiers>;
  private readonly watchManager: WatchManager;
  readonly #watchCoordinator: WatchCoordinator;
  /** Entries are compared by identity, so a stale `register` cannot undo a newer one. */
  private readonly parents = new Map<string, ParentHandler>();
  /** Parent handlers whose registration completed (their informer synced). */
  private readonly confirmedParents = new WeakSet<ParentHandler>();
  /** Handler failures on network errors, one line per cause per interval; flushed at shutdown. */
  private readonly networkLog: LogSummarizer;
  /** Aborted when shutdown begins; every handler's `ctx.signal`. */
  private readonly handlerAbort = new AbortController();
  private readonly workers: WorkerPool;
  /** The passes running now and the failed items, across every term's workers. */
  private readonly activity: WorkerActivity;
  /** `Date.now() - clock.now()` at construction: maps the controller's clock to wall time in {@link status}. */
  private readonly wallOffsetMs: number;
  private state: ControllerState = 'idle';
  /** Decides when the workers run; undefined: always (a single replica). */
  private readonly leadership: Leadership | undefined;
  /** The queue as the workers of each leadership term see it. */
  private readonly terms: TermQueues<ObjectIdentifiers>;
  private leading = false;
  private giveUp: (err: Error) => void = () => undefined;
  /** Rejects when shutdown stops waiting for handlers, so a term's `lead` does not hold its lease forever. */
  private readonly gaveUp = new Promise<never>((_, reject) => {
    this.giveUp = reject;
  });

  constructor(
    @inject(TOKENS.config) config: Config,
    @inject(TOKENS.logger) logger: Logger,
    @inject(TOKENS.clock) clock: Clock,
    @inject(TOKENS.informerSource) informerSource: InformerSource,
    @inject(TOKENS.workQueueFactory) workQueueFactory: WorkQueueFactory,
    @inject(TOKENS.watchManagerFactory) watchManagerFactory: WatchManagerFactory,
    @inject(TOKENS.watchCoordinatorFactory) watchCoordinatorFactory: WatchCoordinatorFactory,
    @inject(TOKENS.controllerObserver) @optional() observer?: ControllerObserver,
    @inject(TOKENS.leadership) @optional() leadership?: Leadership,
  ) {
    // Re-validating is idempotent for a resolved config and catches hand-built ones.
    this.config = resolveConfig(config);
    this.log = logger.child({ component: 'dynamic-controller' });
    this.clock = clock;
    this.wallOffsetMs = Date.now() - clock.now();
    this.activity = new WorkerActivity(clock);
    this.observer = observer ?? noopControllerObserver;
    this.leadership = leadership;
    this.gaveUp.catch(() => undefined);
    this.queue = workQueueFactory<ObjectIdentifiers>({
      key: workItemKey,
      name: 'dynamic-controller-queue',
      limits: {
        minRetryDelayMs: this.config.minRetryDelayMs,
        maxRetryDelayMs: this.config.maxRetryDelayMs,
        qps: this.config.rateLimit,
        burst: this.config.burstLimit,
      },
    });
    this.terms = new TermQueues(this.queue);
    this.watchManager = watchManagerFactory({
      source: informerSource,
      resyncPeriodMs: this.config.resyncPeriodMs,
      onEvent: this.handleEvent,
      logger,
    });
    this.#watchCoordinator = watchCoordinatorFactory({
      watchManager: this.watchManager,
      enqueue: (parentGVR, instance) => {
        this.queue.add({ gvr: parentGVR, namespace: instance.namespace, name: instance.name });
      },
      logger,
    });
    this.networkLog = new LogSummarizer({ logger: this.log, clock });
    this.workers = new WorkerPool({
      queue: this.queue,
      queueMaxRetries: this.config.queueMaxRetries,
      parents: this.parents,
      watchManager: this.watchManager,
      // Also forgets an instance after a handler that ran across deregister, so the watches it declared do not leak.
      watchCoordinator: this.#watchCoordinator,
      signal: this.handlerAbort.signal,
      reconcileTimeoutMs: this.config.reconcileTimeoutMs,
      clock,
      observer: this.observer,
      logger: this.log,
      activity: this.activity,
      networkLog: this.networkLog,
    });
  }

  /** Builds a controller without a container (unset options get core's defaults). */
  static create(options: DynamicControllerOptions): DynamicController {
    return new DynamicController(
      resolveConfig(options.config),
      options.logger ?? createLogger(),
      options.clock ?? realClock,
      options.informerSource,
      options.workQueueFactory,
      options.watchManagerFactory,
      options.watchCoordinatorFactory,
      options.observer,
      options.leadership,
    );
  }

  /**
   * Runs the workers until `signal` aborts, then shuts down: stops every
   * informer, stops accepting work, aborts the handlers' `ctx.signal` and
   * waits up to `queueShutdownTimeoutMs` (0 = no limit) for running handlers.
   * Resolves when they have all returned. Items still queued when shutdown
   * begins are released without running their handler.
   *
   * With a {@link Leadership}, the informers sync and `register` works from
   * the start, but the workers run only in the terms this replica leads (see
   * {@link DynamicController.isLeading}); `start` also ends, after a
   * shutdown, when the leadership's `run` settles on its own, and rejects
   * with its error.
   *
   * Rejects with {@link ControllerStateError} when called a second time
   * (running or stopped), and with {@link ShutdownTimeoutError} when handlers
   * outlive the timeout.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.state !== 'idle') {
      const why = this.state === 'stopped' ? 'it was already stopped; a controller runs once, create a new one' : 'it is already running';
      throw new ControllerStateError(`cannot start DynamicController: ${why}`, this.state);
    }
    if (typeof signal?.addEventListener !== 'function') {
      throw new TypeError(`DynamicController.start: signal must be an AbortSignal, got ${String(signal)}`);
    }
    this.state = 'running';
    const leadership = this.leadership;
    // With a leadership the workers run only in the terms it leads; the informers sync either way (a warm standby).
    const workers =
      leadership === undefined
        ? this.workers.run(this.config.workers)
        : leadership.run(signal, (term, validity) => this.lead(term, validity));
    if (leadership === undefined) this.log.info({ workers: this.config.workers }, 'dynamic controller started');
    else
      this.log.info(
        { workers: this.config.workers, identity: leadership.identity },
        'dynamic controller started on standby; its workers run while it leads',
      );
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
      if (leadership !== undefined) workers.then(resolve, resolve);
    });
    if (!signal.aborted)
      this.log.error({ identity: leadership?.identity }, 'leadership ended before the controller was stopped; shutting down');
    await this.shutdown(workers, signal.reason);
  }

  /**
   * Starts reconciling instances of `parent` with `handler`: watches the
   * parent GVR, waits for its informer to sync, and enqueues every existing
   * instance. Registering a GVR again swaps the handler (the informer is
   * kept) and enqueues every cached instance again.
   *
   * Rejects at once with {@link InvalidGroupVersionResourceError} when
   * `parent` breaks Kubernetes' naming rules (nothing is watched or
   * registered), with {@link ControllerStateError} unless the controller is
   * running, and with {@link ParentSyncError} (GVR named, watch manager error as
   * `cause`) when the informer cannot sync; a failed first registration
   * leaves no handler behind, a failed re-registration keeps the old one.
   */
  async register(parent: GroupVersionResource, handler: Handler): Promise<void> {
    // Before anything else: a bad GVR must not become a URL, an informer or a handler.
    validateGroupVersionResource(parent);
    const key = gvrKey(parent);
    if (this.state !== 'running') {
      throw new ControllerStateError(`cannot register parent ${key}: DynamicController is ${this.state}; call start() first`, this.state);
    }
    if (typeof handler !== 'function') {
      throw new TypeError(`cannot register parent ${key}: handler must be a function, got ${typeof handler}`);
    }
    const gvr: GroupVersionResource = { group: parent.group, version: parent.version, resource: parent.resource };
    const previous = this.parents.get(key);
    // An informer that already exists (a re-register, or a GVR some instance
    // watches as a child) will not replay its cache as add events for us.
    const informerExisted = this.watchManager.getInformer(gvr) !== undefined;
    const entry: ParentHandler = { gvr, handler };
    // Set before the informer starts, so its initial add events are enqueued.
    this.parents.set(key, entry);
    try {
      await this.watchManager.ensureWatch(gvr, parentOwnerId(gvr));
    } catch (err) {
      if (this.parents.get(key) === entry) {
        // A previous handler is put back only if its own registration completed:
        // two overlapping first registrations that both fail leave nothing behind.
        if (previous !== undefined && this.confirmedParents.has(previous)) {
          this.parents.set(key, previous);
        } else {
          this.parents.delete(key);
          this.#watchCoordinator.removeParentGVR(gvr);
        }
      }
      throw new ParentSyncError(gvr, err);
    }
    this.confirmedParents.add(entry);
    if (this.parents.get(key) !== entry) return; // deregistered or replaced while syncing
    if (informerExisted) {
      for (const obj of this.watchManager.getInformer(gvr)?.list() ?? []) {
        this.queue.add({ gvr, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
      }
    }
    this.log.info({ gvr: key, swapped: previous !== undefined }, 'parent registered');
  }

  /**
   * Stops reconciling `parent`: removes its handler, drops the event
   * watch coordinator's state for all its instances and releases the parent watch (the
   * informer keeps running while instances still watch that GVR as a child).
   * Items of `parent` still queued are dropped when a worker picks them.
   * The `ctx.signal` of its passes still running aborts with a
   * {@link PassCancelledError} (reason `deregistered`); such a pass is not
   * retried nor counted as a handler error, and once it returns its
   * instance is removed from the watch coordinator again (it may have
   * declared watches after the removal). The failure counts and backoff of
   * its items are forgotten, so a later registration of the same GVR starts
   * afresh. Deregistering a GVR that is not registered does nothing.
   */
  async deregister(parent: GroupVersionResource): Promise<void> {
    const key = gvrKey(parent);
    const entry = this.parents.get(key);
    if (entry === undefined) {
      this.log.debug({ gvr: key }, 'deregister of a parent that is not registered ignored');
      return;
    }
    this.parents.delete(key);
    // kro-diff: deregister aborts the ctx.signal of the parent's passes still running; kro cancels a handler's
    // context only at shutdown.
    this.activity.cancelParent(key, new PassCancelledError('deregistered', `parent ${key} was deregistered`));
    this.workers.forgetParent(entry.gvr);
    this.#watchCoordinator.removeParentGVR(entry.gvr);
    this.watchManager.releaseWatch(entry.gvr, parentOwnerId(entry.gvr));
    this.log.info({ gvr: key }, 'parent deregistered');
  }

  /** The watch coordinator instance handlers declare their child watches on (seed: `Coordinator()`). */
  watchCoordinator(): WatchCoordinator {
    return this.#watchCoordinator;
  }

  /** The parent GVRs with a handler, in registration order. */
  registeredGVRs(): GroupVersionResource[] {
    return [...this.parents.values()].map((e) => e.gvr);
  }

  /**
   * The running informer of `gvr` (a registered parent, or a child some
   * instance watches), for reading its metadata cache instead of asking the
   * API server: after `ctx.watcher.watch(...)` resolves, the child's informer
   * has synced. `undefined` when nothing watches `gvr`. Read-only use: the
   * cache holds metadata only, and its objects must not be modified.
   */
  informer(gvr: GroupVersionResource): Informer | undefined {
    return this.watchManager.getInformer(gvr);
  }

  /** Informers running in the controller's watch manager (parents and children). */
  activeWatchCount(): number {
    return this.watchManager.activeWatchCount();
  }

  /** Items waiting in the queue (not those being handled). */
  queueLength(): number {
    return this.queue.len();
  }

  /**
   * True while the workers take items: without a {@link Leadership}, from
   * `start` to the beginning of shutdown; with one, while this replica leads
   * a term. A standby is started (`isStarted()`) but not leading.
   */
  isLeading(): boolean {
    return this.leadership === undefined ? this.state === 'running' : this.leading;
  }

  /** True between `start` and the beginning of shutdown. */
  isStarted(): boolean {
    return this.state === 'running';
  }

  /**
   * A snapshot of the controller as plain JSON-serialisable data, metadata
   * only: registered parents, running informers (object counts, owners,
   * health), every instance with its declared watches, and the queue (depth,
   * passes in flight with their age, recently failed items with their cause
   * and next retry). See {@link ControllerStatus} for how times are given.
   *
   * Easy to get wrong: it walks every cached instance of every parent; for
   * a frequent probe read {@link queueStatus} instead.
   */
  status(): ControllerStatus {
    return buildControllerStatus({
      ...this.queueSources(),
      started: this.isStarted(),
      leading: this.isLeading(),
      parents: [...this.parents.values()].map((p) => ({ gvr: p.gvr, confirmed: this.confirmedParents.has(p) })),
      watchManager: this.watchManager,
      watchCoordinator: this.#watchCoordinator,
    });
  }

  /** The `queue` part of {@link status} alone: depth, workers, passes in flight, failed items. */
  queueStatus(): QueueStatus {
    return buildQueueStatus(this.queueSources());
  }

  /**
   * Where an event for `target` goes: the instances it is routed to, watch
   * by watch, and for each other declared watch of its GVR the field it
   * fails (`namespace`, `name`, `selector`) and why. When `target.gvr` is a
   * registered parent, the object's own instance is a route too (a
   * `{ kind: 'parent' }` watch): parent events reconcile the instance they
   * are about, for adds, deletes, resyncs and updates that change
   * `metadata.generation` (or of a resource without one). Without
   * `target.labels` the labels are read from the GVR's informer cache
   * (`object.source` is `'cache'`). Metadata only: no object content is read
   * or returned.
   *
   * The answer is for an event carrying these labels (an add or a delete);
   * an update is routed on its old and its new labels, so it reaches the
   * union of both answers.
   *
   * @throws InvalidGroupVersionResourceError / InvalidObjectNameError for a bad GVR, namespace or name.
   * @throws ExplainError when the labels are to be read from the cache and no informer runs for the GVR or the object is not cached, or when the watch coordinator does not implement `explain`.
   */
  explain(target: ExplainTarget): Explanation {
    return explainRouting(
      {
        watchManager: this.watchManager,
        watchCoordinator: this.#watchCoordinator,
        isParent: (gvr) => this.parents.has(gvrKey(gvr)),
      },
      target,
    );
  }

  private queueSources(): Parameters<typeof buildQueueStatus>[0] {
    return {
      nowMs: this.clock.now(),
      wallTime: (clockMs) => new Date(this.wallOffsetMs + clockMs).toISOString(),
      queue: this.queue,
      activity: this.activity,
      workers: this.config.workers,
      reconcileTimeoutMs: this.config.reconcileTimeoutMs,
    };
  }

  /** True when `parent` is registered and its informer has synced. */
  hasSynced(parent: GroupVersionResource): boolean {
    return this.parents.has(gvrKey(parent)) && (this.watchManager.getInformer(parent)?.hasSynced() ?? false);
  }

  /**
   * Receives every event of the watch manager. Parent events are enqueued,
   * including initial-list adds (an existing instance's first reconcile) and
   * resync replays; other updates only when `generation` changed or is not
   * tracked by the resource. Every event, parent or not, is also handed to
   * the watch coordinator, since one GVR can be both (the watch coordinator ignores
   * initial-list and resync events).
   */
  private readonly handleEvent = (event: WatchEvent): void => {
    try {
      if (this.parents.has(gvrKey(event.gvr))) this.handleParentEvent(event);
      this.#watchCoordinator.routeEvent(event);
    } catch (err) {
      // Never let a routing bug break the informer that delivered the event.
      this.log.error({ err, gvr: gvrKey(event.gvr), instance: `${event.namespace}/${event.name}` }, 'event handling failed');
    }
  };

  private handleParentEvent(event: WatchEvent): void {
    this.notify((o) => o.onParentEvent?.(event.gvr, event.type));
    if (event.type === 'update' && !this.updateNeedsReconcile(event)) return;
    if (event.type === 'delete') this.forgetDeleted(event);
    this.queue.add({ gvr: event.gvr, namespace: event.namespace, name: event.name });
  }

  /**
   * A deleted instance (a delete event or a relist tombstone) loses its
   * watch coordinator state at once unless its handler is running; then the
   * pass is cut off (its `ctx.signal` aborts with a {@link PassCancelledError},
   * reason `deleted`) and the worker forgets the instance when the handler
   * returns, since it is no longer cached. Either way its handler still runs
   * once more, to see it gone.
   */
  private forgetDeleted(event: WatchEvent): void {
    const item: ObjectIdentifiers = { gvr: event.gvr, namespace: event.namespace, name: event.name };
    // kro-diff: a delete event cuts off the instance's pass in flight (ctx.signal aborts); kro lets it run on.
    const key = workItemKey(item);
    if (this.activity.cancel(key, new PassCancelledError('deleted', `instance ${key} was deleted`))) return;
    if (this.activity.isInFlight(item)) return;
    this.#watchCoordinator.removeInstance(event.gvr, item);
  }

  /** Status and metadata-only changes keep the generation and need no reconcile. */
  private updateNeedsReconcile(update: WatchEvent): boolean {
    // kro-diff: a resync re-reconciles every parent, as client-go controllers do (and brings back an item dropped
    // after queueMaxRetries); kro filters resyncs by generation too.
    if (update.resync === true) return true;
    // A resource that does not track generation (ConfigMap-like) has no other way to show a spec change.
    if (update.generation === undefined || update.oldGeneration === undefined) return true;
    return update.generation !== update.oldGeneration;
  }

  /**
   * One leadership term: every cached instance is enqueued again (a new
   * leader cannot know what its predecessor finished, so it does what a cold
   * start would; the queue collapses duplicates), the workers run until
   * `term` aborts (their handlers' `ctx.signal` aborts with it), then the
   * term waits for the handlers it started. Items still queued stay for the
   * next term; the informers keep running.
   */
  private async lead(term: AbortSignal, validity?: Validity): Promise<void> {
    if (this.state !== 'running' || term.aborted) return;
    const identity = this.leadership?.identity ?? '';
    const signal = AbortSignal.any([term, this.handlerAbort.signal]);
    const pool = this.workers.derive(this.terms.view(signal), signal, validity);
    this.leading = true;
    this.enqueueCached();
    this.log.info({ identity, workers: this.config.workers, queued: this.queue.len() }, 'leading: workers started');
    this.notify((o) => o.onLeadershipChange?.(identity, true));
    let drained = false;
    try {
      await Promise.race([pool.run(this.config.workers), this.gaveUp]);
      drained = true;
    } finally {
      this.leading = false;
      const reason = term.aborted ? errorMessage(term.reason) : 'shutdown';
      if (drained)
        this.log.info({ identity, reason }, 'stopped leading: workers stopped and their handlers returned; informers keep syncing');
      else
        this.log.warn(
          { identity, reason, inFlight: pool.inFlightKeys() },
          'stopped leading with handlers still running (shutdown timed out)',
        );
      this.notify((o) => o.onLeadershipChange?.(identity, false));
    }
  }

  /** Enqueues every cached instance of every registered parent. */
  private enqueueCached(): void {
    for (const { gvr } of this.parents.values()) {
      for (const obj of this.watchManager.getInformer(gvr)?.list() ?? []) {
        this.queue.add({ gvr, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
      }
    }
  }

  /** Keys of the items whose handler runs now, in the controller's workers or any term's. */
  private inFlightKeys(): string[] {
    return this.activity.inFlightKeys();
  }

  private async shutdown(workers: Promise<void>, reason: unknown): Promise<void> {
    this.state = 'stopping';
    // A get() parked by a past term must give its item back, or shutdownWithDrain() waits for it.
    this.terms.releaseParked();
    this.log.info({ inFlight: this.inFlightKeys().length }, 'dynamic controller shutting down');
    try {
      this.watchManager.shutdown();
    } catch (err) {
      this.log.error({ err }, 'watch manager shutdown failed');
    }
    const drained = Promise.all([this.queue.shutdownWithDrain(), workers]);
    this.handlerAbort.abort(reason);
    try {
      await this.withShutdownTimeout(drained);
      this.log.info('dynamic controller stopped');
    } finally {
      this.networkLog.flush();
      this.state = 'stopped';
    }
  }

  private async withShutdownTimeout(drained: Promise<unknown>): Promise<void> {
    const timeoutMs = this.config.queueShutdownTimeoutMs;
    if (timeoutMs === 0) {
      await drained;
      return;
    }
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = this.clock.setTimeout(() => {
        const err = new ShutdownTimeoutError(timeoutMs, this.inFlightKeys());
        this.giveUp(err);
        reject(err);
      }, timeoutMs);
    });
    try {
      await Promise.race([drained, timedOut]);
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
    }
  }

  private notify(call: (observer: ControllerObserver) => void): void {
    notifyObserver(this.observer, this.log, call);
  }
}
