import type { Clock } from '../clock.js';
import type { InstanceWatcher, QueueGetResult, RateLimitingQueue } from '../contracts.js';
import { gvrKey, namespacedNameKey, type GroupVersionResource, type ObjectIdentifiers } from '../gvr.js';
import type { Handler, ReconcileContext } from '../handler.js';
import type { Logger } from '../logger.js';
import { classifyHandlerError } from './classifyHandlerError.js';
import type { ControllerObserver, ReconcileOutcome } from './ControllerObserver.js';
import { notifyObserver } from './notifyObserver.js';
import { SettlingWatcher } from './SettlingWatcher.js';
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
  /** The current handler of a parent GVR; `undefined` once deregistered. */
  readonly handlerFor: (gvr: GroupVersionResource) => ParentHandler | undefined;
  /**
   * True when the instance is still in its parent's informer cache. A
   * handler failing with NotFound for an instance that still exists most
   * likely hit a missing child or subresource, which is worth a warning.
   */
  readonly instanceExists?: (item: ObjectIdentifiers) => boolean;
  /** The instance's watcher on the event router, for `ctx.watcher`. */
  readonly watcherFor: (item: ObjectIdentifiers) => InstanceWatcher;
  /**
   * Drops the event router's state of an instance: one that is gone, or one
   * whose handler returned after its parent GVR was deregistered (whatever
   * it declared since belongs to no one).
   */
  readonly forgetInstance: (item: ObjectIdentifiers) => void;
  /** Every handler's `ctx.signal`; once aborted, workers stop running handlers. */
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly observer: ControllerObserver;
  readonly logger: Logger;
}

/**
 * The DynamicController's workers: each takes an item from the queue, runs
 * its parent's handler and applies the seed system's retry rules. The queue
 * guarantees one key is never handled by two workers at once.
 *
 * Easy to get wrong: every path must end in `queue.done(item)`, or the key
 * stays "processing" forever and is never handed out again.
 */
export class WorkerPool {
  private readonly deps: WorkerPoolDeps;
  private readonly inFlight = new Map<string, ObjectIdentifiers>();
  private lastYield = performance.now();

  constructor(deps: WorkerPoolDeps) {
    this.deps = deps;
  }

  /** Starts `count` worker loops; the promise resolves once the queue has shut down and every loop returned. */
  run(count: number): Promise<void> {
    const loops = Array.from({ length: count }, (_, id) => this.loop(id));
    return Promise.all(loops).then(() => undefined);
  }

  /** Keys of the items whose handler is running now. */
  inFlightKeys(): string[] {
    return [...this.inFlight.keys()];
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
      if (performance.now() - this.lastYield > YIELD_EVERY_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        this.lastYield = performance.now();
      }
    }
  }

  /** Never throws: one bad item must not stop a worker. */
  private async process(item: ObjectIdentifiers): Promise<void> {
    const { queue, logger } = this.deps;
    const key = workItemKey(item);
    try {
      // Deliberate difference from the seed system: items still queued at
      // shutdown are released without running a handler whose signal is aborted.
      if (this.deps.signal.aborted) return;
      const parent = this.deps.handlerFor(item.gvr);
      if (parent === undefined) {
        queue.forget(item);
        logger.debug({ item: key }, 'dropping item of a parent that is not registered');
        this.notify((o) => o.onReconcile?.(item.gvr, 0, 'dropped'));
        return;
      }
      this.inFlight.set(key, item);
      const startedAt = this.deps.clock.now();
      const outcome = await this.reconcile(parent, item, key);
      const durationMs = this.deps.clock.now() - startedAt;
      this.notify((o) => o.onReconcile?.(parent.gvr, durationMs, outcome));
      // The deregister cleaned the router before this handler declared its watches;
      // left alone, they would hold their informers forever.
      if (this.deps.handlerFor(item.gvr) === undefined) this.deps.forgetInstance(item);
    } catch (err) {
      logger.error({ err, item: key }, 'processing a work item failed');
    } finally {
      this.inFlight.delete(key);
      try {
        queue.done(item);
      } catch (err) {
        logger.error({ err, item: key }, 'work queue done failed');
      }
    }
  }

  private async reconcile(parent: ParentHandler, item: ObjectIdentifiers, key: string): Promise<ReconcileOutcome> {
    const watcher = new SettlingWatcher(() => this.deps.watcherFor(item));
    const base = this.deps.logger;
    let logger: Logger | undefined;
    const ctx: ReconcileContext = {
      signal: this.deps.signal,
      // Built on first use: most handlers never log, and a pino child per item is not free.
      get logger() {
        return (logger ??= base.child({ gvr: gvrKey(parent.gvr), instance: namespacedNameKey(item) }));
      },
      gvr: parent.gvr,
      watcher,
    };
    let thrownSync = true;
    let outcome: ReconcileOutcome;
    try {
      const pending = parent.handler({ namespace: item.namespace, name: item.name }, ctx);
      thrownSync = false;
      await pending;
      this.deps.queue.forget(item);
      outcome = 'success';
    } catch (err) {
      outcome = this.handleFailure(item, key, err, thrownSync);
    }
    this.settle(item, watcher, outcome);
    return outcome;
  }

  /** Closes the cycle a handler left open on `ctx.watcher`, and forgets instances that are gone. */
  private settle(item: ObjectIdentifiers, watcher: SettlingWatcher, outcome: ReconcileOutcome): void {
    try {
      const succeeded = outcome === 'success' || outcome === 'requeue' || outcome === 'requeue_after' || outcome === 'no_requeue';
      watcher.settle(succeeded);
      // A NotFound for an instance no longer cached means it was deleted: its watches go with it.
      if (outcome === 'not_found' && this.deps.instanceExists?.(item) === false) this.deps.forgetInstance(item);
    } catch (err) {
      this.deps.logger.error({ err, item: workItemKey(item) }, 'settling the instance watcher failed');
    }
  }

  /** The seed system's worker rules for a failed handler. */
  private handleFailure(item: ObjectIdentifiers, key: string, err: unknown, thrownSync: boolean): ReconcileOutcome {
    const { queue, queueMaxRetries, logger } = this.deps;
    const verdict = classifyHandlerError(err);
    switch (verdict.kind) {
      case 'no_requeue':
        queue.forget(item);
        return verdict.kind;
      case 'not_found':
        // As in the seed system, a NotFound means the instance is gone: forget it.
        // When the instance is still cached, the 404 came from something else; say so.
        if (this.deps.instanceExists?.(item) === true) {
          logger.warn(
            { err, item: key },
            `handler failed with NotFound but instance ${key} still exists; treating it as deleted and not retrying (wrap the error to retry)`,
          );
        }
        queue.forget(item);
        return verdict.kind;
      case 'requeue':
        queue.add(item);
        return 'requeue';
      case 'requeue_after':
        // Deliberate difference from the seed system: the failure count is reset, polling is not failing.
        queue.forget(item);
        queue.addAfter(item, verdict.delayMs);
        return 'requeue_after';
      case 'error':
        break;
    }
    this.notify((o) => o.onHandlerError?.(item.gvr, err, thrownSync));
    if (this.deps.signal.aborted) {
      // Shutting down: the failure is most likely the abort itself, and nothing will retry it.
      logger.info({ err, item: key }, 'handler ended during shutdown; not retried');
      return 'error';
    }
    const retries = queue.numRequeues(item);
    if (retries < queueMaxRetries) {
      logger.error({ err, item: key, retries, thrownSync }, 'handler failed; retrying with backoff');
      queue.addRateLimited(item);
      return 'error';
    }
    queue.forget(item);
    logger.error(
      { err, item: key, retries, thrownSync },
      `handler failed after queueMaxRetries=${queueMaxRetries} retries; dropping ${key}`,
    );
    return 'dropped';
  }

  private notify(call: (observer: ControllerObserver) => void): void {
    notifyObserver(this.deps.observer, this.deps.logger, call);
  }
}
