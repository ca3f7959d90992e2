import { bindPassReads, noteRead } from '../passReads.js';
import { bindWriteRecorder } from '../passWrites.js';
import { ObjectNotCachedError } from './ObjectNotCachedError.js';
import type { ObjectReads } from './ObjectReads.js';
import type { Clock } from '../clock.js';
import type { InstancePass, QueueGetResult, RateLimitingQueue, Validity, WatchCoordinator, WatchManager } from '../contracts/index.js';
import { gvrKey, namespacedNameKey, type GroupVersionResource, type ObjectIdentifiers } from '../gvr.js';
import type { CachedListOptions, Handler, ReconcileContext } from '../handler.js';
import type { PartialObjectMetadata } from '../informer.js';
import type { Logger } from '../logger.js';
import { LogSummarizer } from '../LogSummarizer.js';
import type { ControllerObserver, ReconcileOutcome } from './ControllerObserver.js';
import { notifyObserver } from './notifyObserver.js';
import { PassTrace } from './PassTrace.js';
import { createPassSignal } from './passSignal.js';
import { RetryRules } from './retryRules.js';
import { tracing } from '../tracing/tracing.js';
import { traceFields } from './traceFields.js';
import { TriggerLog } from './TriggerLog.js';
import { WorkerActivity } from './WorkerActivity.js';
import { workItemKey } from './workItemKey.js';

/** Longest run of back-to-back work items before a worker yields to the event loop. */
const YIELD_EVERY_MS = 10;

/** A parent GVR's handler as the workers see it. */
export interface ParentHandler {
  readonly gvr: GroupVersionResource;
  readonly handler: Handler;
}

/** What the DynamicController hands its workers. */
export interface WorkerPoolDeps {
  readonly queue: RateLimitingQueue<ObjectIdentifiers>;
  readonly queueMaxRetries: number;
  /** The current handler of each parent GVR, by `gvrKey`; a deregistered GVR has none. Read, never written. */
  readonly parents: ReadonlyMap<string, ParentHandler>;
  /** Whose informer caches tell whether an instance still exists. */
  readonly watchManager: WatchManager;
  /**
   * Starts each pass (`ctx.watcher`, ended by the worker) and forgets the
   * state of an instance that is gone from its parent's cache, or whose
   * handler returned after its parent GVR was deregistered (whatever it
   * declared since belongs to no one).
   */
  readonly watchCoordinator: WatchCoordinator;
  /** Every handler's `ctx.signal`; once aborted, workers stop running handlers. */
  readonly signal: AbortSignal;
  /**
   * The lease a term's workers act under: checked before each pass starts
   * and tied to each pass's `ctx.signal` (see `assertStillValid`). Unset: always valid.
   */
  readonly validity?: Validity;
  /** Per-pass limit (the config's `reconcileTimeoutMs`): `ctx.signal` also aborts after this long. 0 or unset: none. */
  readonly reconcileTimeoutMs?: number;
  readonly clock: Clock;
  readonly observer: ControllerObserver;
  readonly logger: Logger;
  /** Where the passes running now and the failed items are kept; shared with derived pools. Default: a new one on `clock`. */
  readonly activity?: WorkerActivity;
  /**
   * Summarizes handler failures on a network error (one line per cause per
   * interval); shared with derived pools. Default: one on `logger` and `clock`.
   */
  readonly networkLog?: LogSummarizer;
  /** Serves `ctx.get`/`ctx.list` and records the writes made with `ctx.signal`. Default: none (cached reads reject with `ObjectNotCachedError`). */
  readonly reads?: ObjectReads;
  /** What enqueued each item since its last pass (recorded while tracing is on); shared with derived pools. Default: a new one. */
  readonly triggers?: TriggerLog;
}

/**
 * The DynamicController's workers: each takes an item from the queue, runs
 * its parent's handler and applies the seed system's retry rules
 * (`RetryRules`, in `retryRules.ts`). The queue guarantees one key is never
 * handled by two workers at once.
 *
 * Every pass ends by settling the instance's watches (see `settle`): a pass
 * that succeeds (or ends with a requeue signal) commits exactly what it
 * declared on `ctx.watcher`, possibly nothing; a failed pass keeps the
 * previous set; and an instance no longer in its parent's cache is
 * forgotten, whatever its handler returned.
 *
 * Easy to get wrong: every path must end in `queue.done(item)`, or the key
 * stays "processing" forever and is never handed out again.
 */
export class WorkerPool {
  private readonly deps: WorkerPoolDeps & {
    readonly activity: WorkerActivity;
    readonly networkLog: LogSummarizer;
    readonly triggers: TriggerLog;
  };
  /** What happens to an item after its pass. */
  private readonly rules: RetryRules;
  // The event loop's time, not the controller's: a fake clock does not stop microtask chains starving it.
  // eslint-disable-next-line no-restricted-properties
  private lastYield = performance.now();

  constructor(deps: WorkerPoolDeps) {
    this.deps = {
      ...deps,
      activity: deps.activity ?? new WorkerActivity(deps.clock),
      networkLog: deps.networkLog ?? new LogSummarizer({ logger: deps.logger, clock: deps.clock }),
      triggers: deps.triggers ?? new TriggerLog(),
    };
    this.rules = new RetryRules({ ...this.deps, instanceExists: (item) => this.instanceExists(item) });
  }

  /** Starts `count` worker loops; the promise resolves once the queue has shut down and every loop returned. */
  run(count: number): Promise<void> {
    const loops = Array.from({ length: count }, (_, id) => this.loop(id));
    return Promise.all(loops).then(() => undefined);
  }

  /**
   * A pool with the same handlers and rules over `queue`, whose handlers get
   * `signal`: the workers of one leadership term (`queue` a term's view that
   * reports shutdown when the term ends, `signal` aborting with it).
   */
  derive(queue: RateLimitingQueue<ObjectIdentifiers>, signal: AbortSignal, validity?: Validity): WorkerPool {
    return new WorkerPool({ ...this.deps, queue, signal, ...(validity === undefined ? {} : { validity }) });
  }

  /** Keys of the items whose handler is running now, in this pool and those derived from the same one. */
  inFlightKeys(): string[] {
    return this.deps.activity.inFlightKeys();
  }

  /** The passes in flight and the failed items of this pool and those derived from it. */
  activity(): WorkerActivity {
    return this.deps.activity;
  }

  /**
   * Forgets the failure count and backoff of every item of `gvr` the queue
   * still counts (its parent was deregistered): a later registration of the
   * same GVR starts from zero. A retry already waiting in the queue still
   * joins it, as an item without failures.
   */
  forgetParent(gvr: GroupVersionResource): void {
    const { queue, activity } = this.deps;
    activity.forgetParent(gvrKey(gvr));
    activity.releaseParked(gvrKey(gvr));
    for (const item of activity.takeBackingOff(gvrKey(gvr))) queue.forget(item);
  }

  /** True while a handler for `item` is running (in any pool sharing this one's activity). */
  isInFlight(item: ObjectIdentifiers): boolean {
    return this.deps.activity.isInFlight(item);
  }

  private async loop(id: number): Promise<void> {
    for (;;) {
      let next: QueueGetResult<ObjectIdentifiers>;
      try {
        next = await this.deps.queue.get();
      } catch (err) {
        this.deps.logger.error({ err, worker: id }, 'work queue get failed; worker exits');
        return;
      }
      if (next.shutdown) return;
      await this.process(next.item);
      // Handlers that settle without I/O (a handler that requeues itself at
      // once, for example) would otherwise chain microtasks forever and starve
      // timers, sockets and signal handlers. Yield a turn every few ms of such work.
      // eslint-disable-next-line no-restricted-properties -- the event loop's time (see lastYield)
      if (performance.now() - this.lastYield > YIELD_EVERY_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        // eslint-disable-next-line no-restricted-properties
        this.lastYield = performance.now();
      }
    }
  }

  /** Never throws: one bad item must not stop a worker. */
  private async process(item: ObjectIdentifiers): Promise<void> {
    const { queue, logger } = this.deps;
    const key = workItemKey(item);
    let began = false;
    // Taken even when no pass runs, so a released or dropped item keeps nothing.
    const triggers = this.deps.triggers.take(key);
    try {
      // kro-diff: items still queued at shutdown are released without running a handler whose signal is aborted
      // (the next controller to start reconciles them); kro would start them with an aborted context.
      if (this.deps.signal.aborted) return;
      // Past the lease's validity (a freeze), an item is released like one queued at the term's end: checked here,
      // synchronously, because the timer that ends the term may not have run yet.
      if (this.deps.validity?.isValid() === false) return;
      const parent = this.deps.parents.get(gvrKey(item.gvr));
      if (parent === undefined) {
        this.rules.forget(item, key);
        logger.debug({ item: key }, 'dropping item of a parent that is not registered');
        this.notify((o) => o.onReconcile?.(item.gvr, 0, 'dropped'));
        return;
      }
      const trace = PassTrace.begin(parent.gvr, item, queue.numRequeues(item) + 1, triggers);
      this.deps.activity.begin(key, item, trace?.ids);
      began = true;
      const startedAt = this.deps.clock.now();
      const outcome = await this.reconcile(parent, item, key, trace);
      const durationMs = this.deps.clock.now() - startedAt;
      this.notify((o) => o.onReconcile?.(parent.gvr, durationMs, outcome));
      // Deleted while its handler ran, or deregistered (which cleaned the watch coordinator before this handler
      // declared its watches): left alone, the watches would hold their informers forever.
      // kro-diff: an instance deleted while its handler ran, or deregistered meanwhile, is forgotten after the pass,
      // so its watches do not hold their informers forever; kro forgets an instance only when its handler reports
      // NotFound, and so leaks the watches of a handler that ran across deregister.
      if (!this.deps.parents.has(gvrKey(item.gvr)) || !this.instanceExists(item)) this.deps.watchCoordinator.removeInstance(item.gvr, item);
    } catch (err) {
      logger.error({ err, item: key }, 'processing a work item failed');
    } finally {
      if (began) this.deps.activity.end(key);
      try {
        queue.done(item);
      } catch (err) {
        logger.error({ err, item: key }, 'work queue done failed');
      }
    }
  }

  /**
   * True when the instance is still in its parent's informer cache. After
   * every pass of an instance that is gone, its watch coordinator state is forgotten.
   * A handler failing with NotFound for an instance that still exists most
   * likely hit a missing child or subresource (see `decideAfterFailure`).
   */
  private instanceExists(item: ObjectIdentifiers): boolean {
    return this.deps.watchManager.getInformer(item.gvr)?.get(item) !== undefined;
  }

  private async reconcile(
    parent: ParentHandler,
    item: ObjectIdentifiers,
    key: string,
    trace: PassTrace | undefined,
  ): Promise<ReconcileOutcome> {
    let watcher: InstancePass;
    try {
      watcher = this.deps.watchCoordinator.beginPass(item.gvr, item);
    } catch (err) {
      // No pass to settle; the item is retried with backoff like a failed handler, so it is not lost.
      const outcome = this.rules.afterFailure(parent, item, key, { err, thrownSync: true }, trace);
      trace?.end(outcome, err);
      return outcome;
    }
    const base = this.deps.logger;
    let logger: Logger | undefined;
    const limit = createPassSignal({
      shutdown: this.deps.signal,
      clock: this.deps.clock,
      reconcileTimeoutMs: this.deps.reconcileTimeoutMs ?? 0,
      gvr: parent.gvr,
      item,
      ...(this.deps.validity === undefined ? {} : { validity: this.deps.validity }),
    });
    // Deregistering the parent or deleting the instance cuts the pass off through its signal.
    this.deps.activity.onCancel(key, limit.cancel);
    const reads = this.deps.reads;
    // The client's requests made with ctx.signal are children of the pass's span.
    tracing.bindSignal(limit.signal, trace?.span);
    const ctx: ReconcileContext = {
      signal: limit.signal,
      // Built on first use: most handlers never log, and a pino child per item is not free.
      get logger() {
        return (logger ??= base.child({ gvr: gvrKey(parent.gvr), instance: namespacedNameKey(item), ...traceFields(trace) }));
      },
      gvr: parent.gvr,
      watcher: trace === undefined ? watcher : trace.watching(watcher),
      // What a pass reads is remembered: a write of it made with ctx.signal carries the version read (the server's fence).
      get: async <T extends PartialObjectMetadata>(gvr: GroupVersionResource, namespace: string, name: string) => {
        if (reads === undefined) throw new ObjectNotCachedError(gvr);
        const obj = await reads.get<T>(gvr, namespace, name, limit.signal);
        noteRead(limit.signal, gvr, obj);
        return obj;
      },
      list: async <T extends PartialObjectMetadata>(gvr: GroupVersionResource, options: CachedListOptions = {}) => {
        if (reads === undefined) throw new ObjectNotCachedError(gvr);
        const objects = await reads.list<T>(gvr, options, limit.signal);
        noteRead(limit.signal, gvr, objects);
        return objects;
      },
    };
    if (reads !== undefined) bindWriteRecorder(limit.signal, reads);
    bindPassReads(limit.signal);
    let thrownSync = true;
    let outcome: ReconcileOutcome;
    let failure: unknown;
    try {
      const instance = { namespace: item.namespace, name: item.name };
      const pending =
        trace === undefined ? parent.handler(instance, ctx) : tracing.withSpan(trace.span, () => parent.handler(instance, ctx));
      thrownSync = false;
      await pending;
      // A pass that outlived its limit failed, even if the handler swallowed the abort.
      const timedOut = limit.timedOut();
      if (timedOut !== undefined) throw timedOut;
      outcome = this.rules.afterSuccess(item, key);
    } catch (err) {
      failure = limit.timedOut() ?? err;
      outcome = this.rules.afterFailure(parent, item, key, { err: failure, thrownSync, cutBy: limit.cancelledBy() }, trace);
    } finally {
      limit.dispose();
    }
    this.settle(item, watcher, outcome);
    trace?.end(outcome, failure);
    return outcome;
  }

  /**
   * Settles the pass on `ctx.watcher`: a success or a requeue signal commits
   * what the pass declared (nothing declared: the previous watches go); a
   * failure discards it and keeps the previous set.
   */
  private settle(item: ObjectIdentifiers, pass: InstancePass, outcome: ReconcileOutcome): void {
    try {
      // A pass waiting for a kind keeps what it declared: its watch of that kind routes as soon as the kind is served.
      const succeeded =
        outcome === 'success' || outcome === 'requeue' || outcome === 'requeue_after' || outcome === 'no_requeue' || outcome === 'waiting';
      // kro-diff: a successful pass that declared nothing drops the previous watches, so an instance that stopped
      // depending on children releases their informers; kro keeps the previous set when a pass declares nothing.
      pass.end(succeeded);
    } catch (err) {
      this.deps.logger.error({ err, item: workItemKey(item) }, 'settling the instance watcher failed');
    }
  }

  private notify(call: (observer: ControllerObserver) => void): void {
    notifyObserver(this.deps.observer, this.deps.logger, call);
  }
}
