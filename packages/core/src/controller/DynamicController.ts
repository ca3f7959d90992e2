import { realClock, type Clock } from '../clock.js';
import { resolveConfig, type Config } from '../config.js';
import type {
  Leadership,
  PassGate,
  WatchCoordinator,
  WatchCoordinatorFactory,
  WatchManagerFactory,
  WorkQueueFactory,
} from '../contracts/index.js';
import { noopControllerObserver, type ControllerObserver } from './ControllerObserver.js';
import { awaitWithin } from './awaitWithin.js';
import { buildControllerParts, type ControllerParts } from './controllerParts.js';
import { ControllerStateError, type ControllerState } from './ControllerStateError.js';
import type { ControllerStatus, ExplainTarget, Explanation, QueueStatus } from './ControllerStatus.js';
import type { DynamicControllerOptions } from './DynamicControllerOptions.js';
import { ObjectCaches } from './ObjectCaches.js';
import { ParentSyncError } from './ParentSyncError.js';
import type { RegisterOptions } from './RegisterOptions.js';
import { notifyObserver } from './notifyObserver.js';
import { PassCancelledError } from './PassCancelledError.js';
import { ShutdownTimeoutError } from './ShutdownTimeoutError.js';
import { gvrKey, type GroupVersionResource } from '../gvr.js';
import { validateGroupVersionResource } from '../gvrValidation.js';
import type { Handler } from '../handler.js';
import type { InformerCache, InformerSource } from '../informer.js';
import { createLogger, type Logger } from '../logger.js';
import { FencingRequiredError } from '../FencingRequiredError.js';
import { tracing } from '../tracing/tracing.js';

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
export class DynamicController {
  private readonly config: Config;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly observer: ControllerObserver;
  /** Decides when the workers run; undefined: always (a single replica). */
  private readonly leadership: Leadership | undefined;
  /** Wraps every handler registered and runs from `start` (a shard membership); undefined: every pass runs. */
  private readonly passGate: PassGate | undefined;
  private readonly parts: ControllerParts;
  private state: ControllerState = 'idle';
  /** Why the controller must stop on its own (a leadership or gate without a fence): `start` rejects with it. */
  private fatal: Error | undefined;
  private onFatal: () => void = () => undefined;

  constructor(
    config: Config,
    logger: Logger,
    clock: Clock,
    informerSource: InformerSource,
    workQueueFactory: WorkQueueFactory,
    watchManagerFactory: WatchManagerFactory,
    watchCoordinatorFactory: WatchCoordinatorFactory,
    observer?: ControllerObserver,
    leadership?: Leadership,
    passGate?: PassGate,
  ) {
    if (passGate !== undefined && passGate.fencing === undefined) {
      throw new FencingRequiredError(
        'the PassGate bound to TOKENS.passGate',
        'its fencing: the validity of the lease it admits passes for',
      );
    }
    this.passGate = passGate;
    // Where a hand-built config enters, so it is checked here; one from `resolveConfig` (coreModule, `create`) passes
    // through as it is, checked once already.
    this.config = resolveConfig(config);
    this.log = logger.child({ component: 'dynamic-controller' });
    this.clock = clock;
    this.observer = observer ?? noopControllerObserver;
    this.leadership = leadership;
    this.parts = buildControllerParts({
      config: this.config,
      logger,
      log: this.log,
      clock,
      informerSource,
      workQueueFactory,
      watchManagerFactory,
      watchCoordinatorFactory,
      observer: this.observer,
      leadership,
      isRunning: () => this.state === 'running',
      isLeading: () => this.isLeading(),
      notify: (call) => this.notify(call),
      fail: (err) => this.fail(err),
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
      options.passGate,
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
    // Whether an OpenTelemetry SDK is registered, for the events routed before the first pass.
    tracing.refresh();
    this.state = 'running';
    const leadership = this.leadership;
    const gate = this.passGate;
    if (gate?.fencing === 'none')
      this.log.warn(
        { fencing: 'none' },
        "the pass gate runs without a fence (fencing: 'none'): a write of a replica past its lease is not refused",
      );
    // With a leadership the workers run only in the terms it leads; the informers sync either way (a warm standby).
    const workers = leadership === undefined ? this.parts.workers.run(this.config.workers) : leadership.run(signal, this.parts.terms.lead);
    const gateRun = gate?.run(signal);
    const failed = new Promise<void>((resolve) => (this.onFatal = resolve));
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
      gateRun?.then(resolve, (err: unknown) => {
        this.fail(err instanceof Error ? err : new Error(String(err)));
        resolve();
      });
      void failed.then(resolve);
    });
    if (this.fatal !== undefined) this.log.error({ err: this.fatal }, `shutting down: ${this.fatal.message}`);
    else if (!signal.aborted)
      this.log.error(
        { identity: leadership?.identity },
        `${leadership !== undefined ? 'leadership' : 'the pass gate'} ended before the controller was stopped; shutting down`,
      );
    await this.shutdown(workers, this.fatal ?? signal.reason);
    // The gate gives its ranges up when `signal` aborts; after a failure of its own it has stopped already.
    if (gateRun !== undefined && signal.aborted)
      await gateRun.catch((err: unknown) => this.log.error({ err }, 'the pass gate failed while stopping'));
    if (this.fatal !== undefined) throw this.fatal;
  }

  /** Something the controller cannot run without is missing or failed: `start` shuts down and rejects with `err`. */
  private fail(err: Error): void {
    this.fatal ??= err;
    this.onFatal();
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
   *
   * `options.cache` lists GVRs whose full objects the handler reads through
   * `ctx.get`/`ctx.list` (see {@link RegisterOptions}); they are synced
   * before the parent's instances are enqueued, and released by
   * {@link deregister}.
   */
  async register(parent: GroupVersionResource, handler: Handler, options?: RegisterOptions): Promise<void> {
    // Before anything else: a bad GVR must not become a URL, an informer or a handler.
    validateGroupVersionResource(parent);
    const key = gvrKey(parent);
    tracing.refresh();
    // The parent's own cache last: its instances are enqueued as it syncs, and their passes read the others.
    const requests = ObjectCaches.requestsOf(parent, options).sort((a, b) => Number(gvrKey(a.gvr) === key) - Number(gvrKey(b.gvr) === key));
    if (this.state !== 'running') {
      throw new ControllerStateError(`cannot register parent ${key}: DynamicController is ${this.state}; call start() first`, this.state);
    }
    if (typeof handler !== 'function') {
      throw new TypeError(`cannot register parent ${key}: handler must be a function, got ${typeof handler}`);
    }
    // An informer that already exists (a re-register, or a GVR some instance
    // watches as a child) will not replay its cache as add events for us.
    const { parents, watchManager, queue } = this.parts;
    const informerExisted = watchManager.getInformer(parent) !== undefined;
    // Set before the informer starts, so its initial add events are enqueued.
    const registration = parents.begin(parent, this.passGate === undefined ? handler : this.passGate.wrap(handler));
    const { gvr } = registration.entry;
    try {
      // Only when asked: without caches the parent's watch starts within this call, as before.
      if (requests.length > 0) await this.parts.caches.acquire(gvr, requests);
      await watchManager.ensureWatch(gvr, parentOwnerId(gvr));
    } catch (err) {
      if (parents.rollback(registration)) {
        this.parts.coordinator.removeParentGVR(gvr);
        this.parts.caches.release(gvr);
      }
      throw err instanceof ParentSyncError ? err : new ParentSyncError(gvr, err);
    }
    if (!parents.confirm(registration)) return; // deregistered or replaced while syncing
    if (requests.length === 0) this.parts.caches.release(gvr); // what a previous registration cached
    if (informerExisted) {
      for (const obj of watchManager.getInformer(gvr)?.list() ?? []) {
        queue.add({ gvr, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name }, 'initial-list');
      }
    }
    this.log.info({ gvr: key, swapped: registration.previous !== undefined }, 'parent registered');
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
    const entry = this.parts.parents.remove(parent);
    if (entry === undefined) {
      this.log.debug({ gvr: key }, 'deregister of a parent that is not registered ignored');
      return;
    }
    // kro-diff: deregister aborts the ctx.signal of the parent's passes still running; kro cancels a handler's
    // context only at shutdown.
    this.parts.activity.cancelParent(key, new PassCancelledError('deregistered', `parent ${key} was deregistered`));
    this.parts.workers.forgetParent(entry.gvr);
    this.parts.coordinator.removeParentGVR(entry.gvr);
    this.parts.watchManager.releaseWatch(entry.gvr, parentOwnerId(entry.gvr));
    this.parts.caches.release(entry.gvr);
    this.log.info({ gvr: key }, 'parent deregistered');
  }

  /** The watch coordinator instance handlers declare their child watches on (seed: `Coordinator()`). */
  watchCoordinator(): WatchCoordinator {
    return this.parts.coordinator;
  }

  /** The parent GVRs with a handler, in registration order. */
  registeredGVRs(): GroupVersionResource[] {
    return this.parts.parents.gvrs();
  }

  /**
   * The running informer of `gvr` (a registered parent, or a child some
   * instance watches), for reading its metadata cache instead of asking the
   * API server: after `ctx.watcher.watch(...)` resolves, the child's informer
   * has synced. `undefined` when nothing watches `gvr`. Read-only use: the
   * cache holds metadata only, and its objects must not be modified.
   */
  informer(gvr: GroupVersionResource): InformerCache | undefined {
    return this.parts.watchManager.getInformer(gvr);
  }

  /** Informers running in the controller's watch manager (parents and children). */
  activeWatchCount(): number {
    return this.parts.watchManager.activeWatchCount();
  }

  /** Items waiting in the queue (not those being handled). */
  queueLength(): number {
    return this.parts.queue.len();
  }

  /**
   * True while the workers take items: without a {@link Leadership}, from
   * `start` to the beginning of shutdown; with one, while this replica leads
   * a term. A standby is started (`isStarted()`) but not leading.
   */
  isLeading(): boolean {
    return this.leadership === undefined ? this.state === 'running' : this.parts.terms.isLeading();
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
    return this.parts.statusView.status();
  }

  /** The `queue` part of {@link status} alone: depth, workers, passes in flight, failed items. */
  queueStatus(): QueueStatus {
    return this.parts.statusView.queueStatus();
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
    return this.parts.statusView.explain(target);
  }

  /** True when `parent` is registered and its informer has synced. */
  hasSynced(parent: GroupVersionResource): boolean {
    return this.parts.parents.has(parent) && (this.parts.watchManager.getInformer(parent)?.hasSynced() ?? false);
  }

  private async shutdown(workers: Promise<void>, reason: unknown): Promise<void> {
    const { terms, activity, watchManager, queue, handlerAbort, networkLog } = this.parts;
    this.state = 'stopping';
    // A get() parked by a past term must give its item back, or shutdownWithDrain() waits for it.
    terms.releaseParked();
    this.log.info({ inFlight: activity.inFlightKeys().length }, 'dynamic controller shutting down');
    try {
      watchManager.shutdown();
    } catch (err) {
      this.log.error({ err }, 'watch manager shutdown failed');
    }
    const drained = Promise.all([queue.shutdownWithDrain(), workers]);
    handlerAbort.abort(reason);
    try {
      await awaitWithin(drained, this.config.queueShutdownTimeoutMs, this.clock, () => {
        const err = new ShutdownTimeoutError(this.config.queueShutdownTimeoutMs, activity.inFlightKeys());
        // The term running now stops waiting too, so its lease is not held forever.
        terms.abandon(err);
        return err;
      });
      this.log.info('dynamic controller stopped');
    } finally {
      networkLog.flush();
      this.state = 'stopped';
    }
  }

  private notify(call: (observer: ControllerObserver) => void): void {
    notifyObserver(this.observer, this.log, call);
  }
}
