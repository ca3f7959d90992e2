import { errorMessage } from '../apiStatus.js';
import type { Fencing, RateLimitingQueue, Validity, WatchManager } from '../contracts/index.js';
import { FencingRequiredError } from '../FencingRequiredError.js';
import type { ObjectIdentifiers } from '../gvr.js';
import type { Logger } from '../logger.js';
import { tracing } from '../tracing/tracing.js';
import type { ControllerObserver } from './ControllerObserver.js';
import type { ParentRegistry } from './ParentRegistry.js';
import { TermQueues } from './TermQueues.js';
import type { TriggerLog } from './TriggerLog.js';
import type { WorkerPool } from './WorkerPool.js';
import { workItemKey } from './workItemKey.js';

/** What {@link LeadershipTerms} works with; all of it owned by the controller. */
export interface LeadershipTermsDeps {
  readonly identity: string;
  readonly queue: RateLimitingQueue<ObjectIdentifiers>;
  readonly workers: WorkerPool;
  readonly workerCount: number;
  readonly parents: ParentRegistry;
  readonly watchManager: WatchManager;
  /** Aborted when the controller's shutdown begins. */
  readonly shutdownSignal: AbortSignal;
  /** False once the controller is stopping: a term offered then does not start. */
  readonly isRunning: () => boolean;
  readonly log: Logger;
  readonly notify: (call: (observer: ControllerObserver) => void) => void;
  /** Stops the controller with `err`: a term offered without a fence. */
  readonly fail: (err: Error) => void;
  /** Where each takeover enqueue is recorded while tracing is on. */
  readonly triggers: TriggerLog;
}

/**
 * The controller's side of a `Leadership`: each term led runs the workers
 * on the term's view of the one queue ({@link TermQueues}), and ends when
 * its signal aborts and its handlers returned. Items still queued stay for
 * the next term; the informers keep running across terms.
 */
export class LeadershipTerms {
  private readonly terms: TermQueues<ObjectIdentifiers>;
  /** The validity of the term led now (`true` for one without), `undefined` between terms. */
  private current: Validity | true | undefined;
  private giveUp: (err: Error) => void = () => undefined;
  /** `fencing: 'none'` was logged (once). */
  private unfencedLogged = false;
  /** Rejects when shutdown stops waiting for handlers, so a term's `lead` does not hold its lease forever. */
  private readonly gaveUp = new Promise<never>((_, reject) => {
    this.giveUp = reject;
  });

  constructor(private readonly deps: LeadershipTermsDeps) {
    this.terms = new TermQueues(deps.queue);
    this.gaveUp.catch(() => undefined);
  }

  /**
   * True while a term runs and, when the leadership gave one, its validity
   * holds: a replica woken from a freeze past its lease stops reporting
   * itself leading before its term's signal has aborted.
   */
  isLeading(): boolean {
    const current = this.current;
    return current === true || (current !== undefined && current.isValid());
  }

  /**
   * One term: every cached instance is enqueued again (a new leader cannot
   * know what its predecessor finished, so it does what a cold start would;
   * the queue collapses duplicates), the workers run until `term` aborts
   * (their handlers' `ctx.signal` aborts with it), then the term waits for
   * the handlers it started.
   */
  readonly lead = async (term: AbortSignal, fencing: Fencing): Promise<void> => {
    const { deps } = this;
    if (fencing === undefined || fencing === null) {
      // A leadership written before fencing was required, or one that forgot it: no pass runs unfenced by accident.
      const err = new FencingRequiredError(
        `leadership ${deps.identity}`,
        "call lead(term, validity) with the term's validity, as LeaderElector does",
      );
      deps.fail(err);
      throw err;
    }
    if (fencing === 'none' && !this.unfencedLogged) {
      this.unfencedLogged = true;
      deps.log.warn(
        { identity: deps.identity, fencing: 'none' },
        "leading without a fence (fencing: 'none'): a write made past the end of a term is not refused",
      );
    }
    const validity = fencing === 'none' ? undefined : fencing;
    if (!deps.isRunning() || term.aborted) return;
    const signal = AbortSignal.any([term, deps.shutdownSignal]);
    const pool = deps.workers.derive(this.terms.view(signal), signal, validity);
    this.current = validity ?? true;
    this.enqueueCached();
    deps.log.info({ identity: deps.identity, workers: deps.workerCount, queued: deps.queue.len() }, 'leading: workers started');
    deps.notify((o) => o.onLeadershipChange?.(deps.identity, true));
    let drained = false;
    try {
      await Promise.race([pool.run(deps.workerCount), this.gaveUp]);
      drained = true;
    } finally {
      this.current = undefined;
      const reason = term.aborted ? errorMessage(term.reason) : 'shutdown';
      if (drained)
        deps.log.info(
          { identity: deps.identity, reason },
          'stopped leading: workers stopped and their handlers returned; informers keep syncing',
        );
      else
        deps.log.warn(
          { identity: deps.identity, reason, inFlight: pool.inFlightKeys() },
          'stopped leading with handlers still running (shutdown timed out)',
        );
      deps.notify((o) => o.onLeadershipChange?.(deps.identity, false));
    }
  };

  /** Shutdown begins: a `get()` parked by a past term gives its item back, or the queue's drain waits for it. */
  releaseParked(): void {
    this.terms.releaseParked();
  }

  /** Shutdown stopped waiting for handlers: the term running now ends with `err`. */
  abandon(err: Error): void {
    this.giveUp(err);
  }

  private enqueueCached(): void {
    const { queue, parents, watchManager, triggers } = this.deps;
    // While tracing is on, one span for the takeover, which the passes it enqueued link to.
    const span = tracing.refresh()
      ? tracing.startSpan('protean.takeover', { parent: 'root', attributes: { 'protean.identity': this.deps.identity } })
      : undefined;
    const trigger = span === undefined ? undefined : { source: 'takeover' as const, span: span.spanContext() };
    let count = 0;
    for (const gvr of parents.gvrs()) {
      for (const obj of watchManager.getInformer(gvr)?.list() ?? []) {
        const item = { gvr, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
        queue.add(item, 'takeover');
        if (trigger !== undefined) triggers.record(workItemKey(item), trigger);
        count++;
      }
    }
    span?.setAttribute('protean.takeover.instances', count);
    span?.end();
  }
}
