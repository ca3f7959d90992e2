import { markChecked } from '../checkedSettings.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type {
  Leadership,
  RateLimitingQueue,
  WatchCoordinator,
  WatchCoordinatorFactory,
  WatchManager,
  WatchManagerFactory,
  WorkQueueFactory,
} from '../contracts/index.js';
import type { ObjectIdentifiers } from '../gvr.js';
import type { InformerSource } from '../informer.js';
import type { Logger } from '../logger.js';
import { LogSummarizer } from '../LogSummarizer.js';
import type { ControllerObserver } from './ControllerObserver.js';
import { LeadershipTerms } from './LeadershipTerms.js';
import { ObjectCaches } from './ObjectCaches.js';
import { ObjectReads } from './ObjectReads.js';
import { ParentEvents } from './ParentEvents.js';
import { ParentRegistry } from './ParentRegistry.js';
import { StatusView } from './StatusView.js';
import { TriggerLog } from './TriggerLog.js';
import { WorkerActivity } from './WorkerActivity.js';
import { WorkerPool } from './WorkerPool.js';
import { workItemKey } from './workItemKey.js';

/** What a DynamicController is built from: its resolved config, its injected factories, and its state as callbacks. */
export interface ControllerPartsDeps {
  /** As `resolveConfig` returned it: its values are taken as they are. */
  readonly config: Config;
  /** The logger given to the controller (the watch manager and coordinator log through it). */
  readonly logger: Logger;
  /** The controller's own child logger. */
  readonly log: Logger;
  readonly clock: Clock;
  readonly informerSource: InformerSource;
  readonly workQueueFactory: WorkQueueFactory;
  readonly watchManagerFactory: WatchManagerFactory;
  readonly watchCoordinatorFactory: WatchCoordinatorFactory;
  readonly observer: ControllerObserver;
  readonly leadership: Leadership | undefined;
  readonly isRunning: () => boolean;
  readonly isLeading: () => boolean;
  readonly notify: (call: (observer: ControllerObserver) => void) => void;
  /** Stops the controller with `err` (`start` rejects with it). */
  readonly fail: (err: Error) => void;
}

/** The parts of one DynamicController, wired to each other. */
export interface ControllerParts {
  readonly parents: ParentRegistry;
  readonly queue: RateLimitingQueue<ObjectIdentifiers>;
  readonly watchManager: WatchManager;
  readonly coordinator: WatchCoordinator;
  /** Aborted when shutdown begins; every handler's `ctx.signal`. */
  readonly handlerAbort: AbortController;
  /** The passes running now and the failed items, across every term's workers. */
  readonly activity: WorkerActivity;
  /** Handler failures on network errors, one line per cause per interval; flushed at shutdown. */
  readonly networkLog: LogSummarizer;
  readonly workers: WorkerPool;
  /** The terms this replica leads (with a leadership). */
  readonly terms: LeadershipTerms;
  readonly statusView: StatusView;
  /** The GVRs each registration caches as full objects. */
  readonly caches: ObjectCaches;
  /** The handlers' cached reads (`ctx.get`, `ctx.list`) with read-your-writes. */
  readonly reads: ObjectReads;
}

/**
 * Builds and wires a controller's parts: the queue from its factory, the
 * watch manager (events to {@link ParentEvents}), the coordinator over the
 * watch manager (enqueueing into the queue), the workers, the leadership
 * terms and the status view.
 */
export function buildControllerParts(deps: ControllerPartsDeps): ControllerParts {
  const { config, clock, log } = deps;
  const parents = new ParentRegistry();
  const activity = new WorkerActivity(clock);
  const handlerAbort = new AbortController();
  const queue = deps.workQueueFactory<ObjectIdentifiers>({
    key: workItemKey,
    name: 'dynamic-controller-queue',
    // Checked where they entered (resolveConfig): marked so the queue's limiter takes them as they are.
    limits: markChecked(
      Object.freeze({
        minRetryDelayMs: config.minRetryDelayMs,
        maxRetryDelayMs: config.maxRetryDelayMs,
        qps: config.rateLimit,
        burst: config.burstLimit,
      }),
    ),
  });
  const triggers = new TriggerLog();
  const events = new ParentEvents({ parents, queue, activity, log, notify: deps.notify, triggers });
  const watchManager = deps.watchManagerFactory({
    source: deps.informerSource,
    resyncPeriodMs: config.resyncPeriodMs,
    onEvent: events.handle,
    logger: deps.logger,
  });
  const caches = new ObjectCaches(watchManager);
  const reads = new ObjectReads({
    watchManager,
    clock,
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
    notify: deps.notify,
    trimOf: (gvr) => caches.trimOf(gvr),
  });
  events.reads = reads;
  const coordinator = deps.watchCoordinatorFactory({
    watchManager,
    enqueue: (parentGVR, instance, trigger) => {
      const item = { gvr: parentGVR, namespace: instance.namespace, name: instance.name };
      queue.add(item, 'live');
      if (trigger !== undefined) triggers.record(workItemKey(item), trigger);
    },
    logger: deps.logger,
  });
  events.coordinator = coordinator;
  const networkLog = new LogSummarizer({ logger: log, clock });
  const workers = new WorkerPool({
    queue,
    queueMaxRetries: config.queueMaxRetries,
    parents: parents.handlers,
    watchManager,
    // Also forgets an instance after a handler that ran across deregister, so the watches it declared do not leak.
    watchCoordinator: coordinator,
    signal: handlerAbort.signal,
    reconcileTimeoutMs: config.reconcileTimeoutMs,
    clock,
    observer: deps.observer,
    logger: log,
    activity,
    networkLog,
    reads,
    triggers,
  });
  const terms = new LeadershipTerms({
    identity: deps.leadership?.identity ?? '',
    queue,
    workers,
    workerCount: config.workers,
    parents,
    watchManager,
    shutdownSignal: handlerAbort.signal,
    isRunning: deps.isRunning,
    log,
    notify: deps.notify,
    fail: deps.fail,
    triggers,
  });
  const statusView = new StatusView({
    clock,
    queue,
    activity,
    parents,
    watchManager,
    watchCoordinator: coordinator,
    workers: config.workers,
    reconcileTimeoutMs: config.reconcileTimeoutMs,
    isStarted: deps.isRunning,
    isLeading: deps.isLeading,
  });
  return { parents, queue, watchManager, coordinator, handlerAbort, activity, networkLog, workers, terms, statusView, caches, reads };
}
