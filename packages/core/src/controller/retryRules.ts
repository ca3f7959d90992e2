import { apiStatusChain, apiStatusOf, summarizeError, type ApiStatus } from '../apiStatus.js';
import { gvrKey, type ObjectIdentifiers } from '../gvr.js';
import type { KindUnavailableError } from '../KindUnavailableError.js';
import { networkErrorCause } from '../networkErrorCause.js';
import { classifyHandlerError } from './classifyHandlerError.js';
import type { ReconcileOutcome } from './ControllerObserver.js';
import { notifyObserver } from './notifyObserver.js';
import { passCancellationOf, type PassCancelledError, type PassCancelReason } from './PassCancelledError.js';
import type { PassTrace } from './PassTrace.js';
import { traceFields } from './traceFields.js';
import type { ParentHandler, WorkerPoolDeps } from './WorkerPool.js';

/**
 * When an instance parked on an unavailable kind runs again under a watch
 * manager that cannot tell when the kind is back (no `whenAvailable`).
 */
export const KIND_RECHECK_MS = 60_000;

/** How a pass failed: the error, whether the handler threw before returning its promise, and what cut the pass off, if anything. */
export interface PassFailure {
  readonly err: unknown;
  readonly thrownSync: boolean;
  readonly cutBy?: PassCancelledError | undefined;
}

/**
 * What the rules may ask about a failed item. Each is asked only when a
 * rule needs it: the parent's cache for a NotFound, the registration and
 * the pool's signal for an error, the queue's count for an error that was
 * not cut off.
 */
export interface FailedItemState {
  /** The instance is still in its parent's informer cache. */
  instanceExists(): boolean;
  /** The registration the pass ran under ended: its parent GVR was deregistered, or registered again. */
  registrationEnded(): boolean;
  /** The pool is stopping: shutdown, or the end of a leadership term. */
  stopping(): boolean;
  /** The watch manager can tell when a refused kind is served again (`whenAvailable`). */
  canWaitForKind(): boolean;
  /** The failures the queue counts for the item (`numRequeues`). */
  retries(): number;
  /** The config's `queueMaxRetries`. */
  readonly maxRetries: number;
}

/** What happens to an item after its pass, and the pass's outcome (the observer's `onReconcile`). */
export type RetryDecision =
  /** Forgets the item: its failure count, its backoff and its failed-items record. */
  | { readonly action: 'forget'; readonly outcome: 'success' | 'no_requeue' | 'not_found' }
  /** Forgets it, then parks it until the kind `refusal` refused is served (the watch manager's `whenAvailable`). */
  | { readonly action: 'wait_for_kind'; readonly outcome: 'waiting'; readonly refusal: KindUnavailableError }
  /** Forgets it, then queues it again after `delayMs`: the watch manager cannot tell when the kind is back. */
  | { readonly action: 'recheck_kind'; readonly outcome: 'waiting'; readonly refusal: KindUnavailableError; readonly delayMs: number }
  /** Forgets it, then parks it until `ready` settles (`RequeueWhen`). */
  | { readonly action: 'wait'; readonly outcome: 'waiting'; readonly ready: (signal: AbortSignal) => Promise<void> }
  /** Queues it again at once, keeping its failure count (`RequeueNeeded`). */
  | { readonly action: 'requeue'; readonly outcome: 'requeue' }
  /** Forgets it, then queues it again after `delayMs` (`RequeueNeededAfter`). */
  | { readonly action: 'requeue_after'; readonly outcome: 'requeue_after'; readonly delayMs: number }
  /** Forgets it: the pass was cut off by normal operation, for `reason`. */
  | { readonly action: 'cancel'; readonly outcome: 'cancelled'; readonly reason: PassCancelReason }
  /** A handler error: retried with backoff, `retries` being the failures the queue counted before this one. */
  | { readonly action: 'retry'; readonly outcome: 'error'; readonly retries: number }
  /** A handler error with no retry left (`retries` reached `queueMaxRetries`): forgotten and dropped. */
  | { readonly action: 'drop'; readonly outcome: 'dropped'; readonly retries: number };

/** The decisions of a handler error: retried with backoff, or dropped. */
type HandlerError = Extract<RetryDecision, { readonly action: 'retry' | 'drop' }>;
/** Every other decision. */
type NotAnError = Exclude<RetryDecision, HandlerError>;

/** A pass that resolved in time: the item is forgotten. */
export const SUCCEEDED: Extract<RetryDecision, { readonly action: 'forget' }> = { action: 'forget', outcome: 'success' };

/**
 * The seed system's worker rules for a failed handler (or a pass that
 * could not begin), as a decision: requeue signals first, then a wait for
 * a kind, a NotFound of the instance, a pass cut off by normal operation
 * (see {@link cancellation}), and else a handler error, retried with
 * backoff until `queueMaxRetries`, then dropped. A pass that outlived its
 * `reconcileTimeoutMs` fails with its `ReconcileTimeoutError`: a handler
 * error like any other. Asks `state` only what the rule it reaches needs.
 */
export function decideAfterFailure(failed: PassFailure, item: ObjectIdentifiers, state: FailedItemState): RetryDecision {
  const { err, cutBy } = failed;
  const verdict = classifyHandlerError(err);
  switch (verdict.kind) {
    case 'no_requeue':
      return { action: 'forget', outcome: 'no_requeue' };
    case 'waiting':
      // Not a failure of the handler: the kind comes back through the cluster, not through retries.
      return state.canWaitForKind()
        ? { action: 'wait_for_kind', outcome: 'waiting', refusal: verdict.refusal }
        : { action: 'recheck_kind', outcome: 'waiting', refusal: verdict.refusal, delayMs: KIND_RECHECK_MS };
    case 'requeue_when':
      // Not a failure either: what the item waits for (a lease valid again) is not hurried by retries.
      return { action: 'wait', outcome: 'waiting', ready: verdict.ready };
    case 'not_found':
      // As in the seed system, a NotFound of the instance means it is gone: forget it.
      // kro-diff: a 404 while the instance is still in its parent's cache that does not name the instance came from
      // something else (a child, a subresource): the pass failed and is retried with backoff; kro forgets the instance.
      if (state.instanceExists() && !namesInstance(err, item)) break;
      return { action: 'forget', outcome: 'not_found' };
    case 'requeue':
      return { action: 'requeue', outcome: 'requeue' };
    case 'requeue_after':
      return { action: 'requeue_after', outcome: 'requeue_after', delayMs: verdict.delayMs };
    case 'error':
      break;
  }
  // kro-diff: a pass cut off by normal operation (its parent deregistered or deleted, shutdown, the end of a
  // leadership term, a lost shard range) is logged once at info and forgotten, neither retried nor counted as a
  // handler error; kro retries every failed pass with backoff and counts it as a handler error.
  const cancelled = cutBy?.reason ?? cancellation(err, state);
  if (cancelled !== undefined) return { action: 'cancel', outcome: 'cancelled', reason: cancelled };
  const retries = state.retries();
  return retries < state.maxRetries ? { action: 'retry', outcome: 'error', retries } : { action: 'drop', outcome: 'dropped', retries };
}

/**
 * Why a failed pass whose signal was not cancelled is not a failure, if
 * it is not: its registration ended (deregistered, or replaced by a new
 * one that queues every instance again), the pool is stopping (shutdown
 * or the end of a leadership term), or the handler rejected with a
 * `PassCancelledError` (a lost shard range).
 */
function cancellation(err: unknown, state: FailedItemState): PassCancelReason | undefined {
  if (state.registrationEnded()) return 'deregistered';
  if (state.stopping()) return 'stopping';
  return passCancellationOf(err)?.reason;
}

/**
 * True when a 404 in `err` names the instance itself (`Status.details.name`):
 * the handler read or wrote its own instance, deleted before its informer
 * heard of it.
 */
export function namesInstance(err: unknown, item: ObjectIdentifiers): boolean {
  for (const status of apiStatusChain(err)) if (status.code === 404 && status.name === item.name) return true;
  return false;
}

/**
 * What {@link RetryRules} acts on: a worker pool's own dependencies (a
 * derived pool has its own queue and signal), with the parts the pool
 * fills in by default filled in, and how it tells an instance is still
 * in its parent's informer cache.
 */
export type RetryRulesDeps = Pick<
  WorkerPoolDeps,
  'queue' | 'queueMaxRetries' | 'parents' | 'watchManager' | 'signal' | 'observer' | 'logger'
> &
  Required<Pick<WorkerPoolDeps, 'activity' | 'networkLog' | 'triggers'>> & {
    /** True when the instance is still in its parent's informer cache. */
    readonly instanceExists: (item: ObjectIdentifiers) => boolean;
  };

/**
 * Carries out the retry rules' decision after each pass of a worker pool:
 * on the queue (forget, requeue, backoff), the workers' activity (failed
 * items, items backing off or parked), the logs, the observer's
 * `onHandlerError`, and the pass's trace (what the next pass links to). An
 * error (not a requeue signal, not NotFound) is recorded in the activity's
 * failed items, with its next retry when the queue tells it; any other
 * outcome clears the item's failure.
 */
export class RetryRules {
  constructor(private readonly deps: RetryRulesDeps) {}

  /** After a pass that resolved in time. */
  afterSuccess(item: ObjectIdentifiers, key: string): ReconcileOutcome {
    return this.apply(SUCCEEDED, item, key, undefined);
  }

  /** After a failed pass of `parent`'s handler, or one that could not begin. */
  afterFailure(
    parent: ParentHandler,
    item: ObjectIdentifiers,
    key: string,
    failed: PassFailure,
    trace: PassTrace | undefined,
  ): ReconcileOutcome {
    const decision = decideAfterFailure(failed, item, this.stateOf(parent, item));
    if (decision.action === 'retry' || decision.action === 'drop') return this.fail(decision, item, key, failed, trace);
    return this.apply(decision, item, key, failed.err, trace);
  }

  /** Resets the item's failure count and backoff in the queue. */
  forget(item: ObjectIdentifiers, key: string): void {
    this.deps.queue.forget(item);
    this.deps.activity.clearBackingOff(key);
  }

  private stateOf(parent: ParentHandler, item: ObjectIdentifiers): FailedItemState {
    const { queue, queueMaxRetries, parents, watchManager, signal, instanceExists } = this.deps;
    return {
      instanceExists: () => instanceExists(item),
      registrationEnded: () => parents.get(gvrKey(item.gvr)) !== parent,
      stopping: () => signal.aborted,
      canWaitForKind: () => watchManager.whenAvailable !== undefined,
      retries: () => queue.numRequeues(item),
      maxRetries: queueMaxRetries,
    };
  }

  /** Every decision but a handler error's (see `fail`); `err` is what the pass failed with, if it did. */
  private apply(decision: NotAnError, item: ObjectIdentifiers, key: string, err: unknown, trace?: PassTrace): ReconcileOutcome {
    const { queue, logger, activity, watchManager } = this.deps;
    switch (decision.action) {
      case 'forget':
        this.forget(item, key);
        activity.clearFailure(key);
        return decision.outcome;
      case 'wait_for_kind':
      case 'recheck_kind': {
        this.forget(item, key);
        activity.clearFailure(key);
        if (decision.action === 'recheck_kind') {
          queue.addAfter(item, decision.delayMs, 'requeue');
          this.againAfter(key, trace, 'requeue', decision.delayMs);
        } else {
          const { refusal } = decision;
          this.park(item, key, (signal) => watchManager.whenAvailable!(refusal, signal), trace);
        }
        // One line per kind and transition is the coordinator's; here, debug only.
        if (logger.isLevelEnabled('debug')) {
          logger.debug({ item: key, kind: decision.refusal.kind, error: decision.refusal.message }, 'pass waits for a kind');
        }
        return decision.outcome;
      }
      case 'wait':
        this.forget(item, key);
        activity.clearFailure(key);
        this.park(item, key, decision.ready, trace);
        return decision.outcome;
      case 'requeue':
        queue.add(item, 'requeue');
        this.againAfter(key, trace, 'requeue');
        activity.clearFailure(key);
        return decision.outcome;
      case 'requeue_after':
        // kro-diff: RequeueNeededAfter resets the item's failure count before re-adding it, since a handler polling an
        // external state is not a failing one; kro does not reset it.
        this.forget(item, key);
        queue.addAfter(item, decision.delayMs, 'requeue');
        this.againAfter(key, trace, 'requeue', decision.delayMs);
        activity.clearFailure(key);
        return decision.outcome;
      case 'cancel':
        this.forget(item, key);
        activity.clearFailure(key);
        logger.info(
          { item: key, reason: decision.reason, error: summarizeError(err) },
          `pass of ${key} cut off (${CANCEL_WORDS[decision.reason]}); not retried`,
        );
        return decision.outcome;
    }
  }

  /** A handler error: logged, counted by the observer and recorded in the failed items; retried with backoff or dropped. */
  private fail(
    decision: HandlerError,
    item: ObjectIdentifiers,
    key: string,
    failed: PassFailure,
    trace: PassTrace | undefined,
  ): ReconcileOutcome {
    const { queue, queueMaxRetries, logger, activity } = this.deps;
    const { err, thrownSync } = failed;
    const { retries } = decision;
    notifyObserver(this.deps.observer, logger, (o) => o.onHandlerError?.(item.gvr, err, thrownSync));
    // Once per failure: the log line, its fields and the failed-items record share it.
    const summary = summarizeError(err);
    const status = apiStatusOf(err);
    const fields = { ...errorFields(err, summary, status), ...traceFields(trace) };
    const failure = {
      item,
      error: summary,
      reason: status !== undefined ? status.reason : err instanceof Error ? err.name : undefined,
      failures: retries + 1,
      trace: trace?.ids,
    };
    if (logger.isLevelEnabled('debug')) logger.debug({ err, item: key }, 'handler error in full');
    const network = networkErrorCause(err);
    if (decision.action === 'retry') {
      if (network === undefined) {
        logger.error({ ...fields, item: key, retries, thrownSync }, `handler failed; retrying with backoff: ${summary}`);
      } else {
        // One line without a stack, and a burst of one cause (an API server outage) summarized per interval.
        this.deps.networkLog.log(
          network,
          { error: summary, item: key, retries, ...traceFields(trace) },
          `handler failed on a network error (${network}); retrying with backoff: ${summary}`,
        );
      }
      queue.addRateLimited(item, 'retry');
      this.againAfter(key, trace, 'retry');
      activity.markBackingOff(key, item);
      activity.recordFailure(key, { ...failure, nextRetryAtMs: queue.readyAt?.(item), dropped: false });
      return decision.outcome;
    }
    this.forget(item, key);
    logger.error(
      { ...(network === undefined ? fields : { error: summary, cause: network, ...traceFields(trace) }), item: key, retries, thrownSync },
      `handler failed after queueMaxRetries=${queueMaxRetries} retries; dropping ${key}: ${summary}`,
    );
    activity.recordFailure(key, { ...failure, nextRetryAtMs: undefined, dropped: true });
    return decision.outcome;
  }

  /** Runs `item` again once `wait` resolves (or rejects), one wait per item; the wait ends at shutdown. */
  private park(item: ObjectIdentifiers, key: string, wait: (signal: AbortSignal) => Promise<void>, trace: PassTrace | undefined): void {
    const { queue, signal: stopping } = this.deps;
    const parked = this.deps.activity.park(
      key,
      (signal) => Promise.resolve().then(() => wait(AbortSignal.any([signal, stopping]))),
      () => {
        if (!stopping.aborted) queue.add(item, 'requeue');
      },
    );
    if (parked) this.againAfter(key, trace, 'requeue');
  }

  /** The item runs again because of this pass: the next pass links to it. */
  private againAfter(key: string, trace: PassTrace | undefined, source: 'requeue' | 'retry', delayMs?: number): void {
    if (trace === undefined) return;
    if (source === 'requeue') trace.requeued(delayMs);
    this.deps.triggers.record(key, { source, span: trace.context() });
  }
}

/** The words of a cut-off pass's log line, by reason. */
const CANCEL_WORDS: Readonly<Record<PassCancelReason, string>> = {
  deregistered: 'its parent GVR was deregistered or registered again',
  deleted: 'the instance was deleted',
  stopping: 'the controller is stopping or its leadership term ended',
  'range-lost': 'this replica lost the shard range of the instance',
};

/**
 * The log fields of a handler failure. A Kubernetes API error is logged as
 * its status, reason and message only: client-node's errors carry headers
 * and the whole response body, kilobytes per line. Other errors keep their
 * stack (`err`), which is what a bug in handler code needs.
 */
function errorFields(err: unknown, summary: string, status: ApiStatus | undefined): Record<string, unknown> {
  if (status === undefined) return { err };
  return { error: summary, status: status.code, ...(status.reason === undefined ? {} : { reason: status.reason }) };
}
