import { describe, expect, it } from '@jest/globals';
import { gvrKey, type GroupVersionResource, type ObjectIdentifiers } from '../gvr.js';
import { KindNotServedError, WatchForbiddenError } from '../KindUnavailableError.js';
import { LogSummarizer } from '../LogSummarizer.js';
import { requeue, RequeueWhen } from '../requeue.js';
import { StaleReadError } from '../StaleReadError.js';
import {
  FakeClock,
  FakeStatusError,
  FakeWatchManager,
  FakeWorkQueue,
  flushMicrotasks,
  LogRecorder,
  ObserverRecorder,
} from '../testing/index.js';
import { PassCancelledError, type PassCancelReason } from './PassCancelledError.js';
import { ReconcileTimeoutError } from './ReconcileTimeoutError.js';
import {
  decideAfterFailure,
  KIND_RECHECK_MS,
  namesInstance,
  RetryRules,
  SUCCEEDED,
  type FailedItemState,
  type PassFailure,
  type RetryDecision,
} from './retryRules.js';
import { TriggerLog } from './TriggerLog.js';
import { WorkerActivity } from './WorkerActivity.js';
import type { ParentHandler } from './WorkerPool.js';
import { workItemKey } from './workItemKey.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const a: ObjectIdentifiers = { gvr: webapps, namespace: 'ns', name: 'a' };

interface Answers {
  readonly instanceExists: boolean;
  readonly registrationEnded: boolean;
  readonly stopping: boolean;
  readonly canWaitForKind: boolean;
  readonly retries: number;
  readonly maxRetries: number;
}

/**
 * An item's state with the given answers (by default: a cached instance, a live registration, its first failure of 3),
 * recording what the rules asked.
 */
function stateOf(answers: Partial<Answers> = {}): FailedItemState & { readonly asked: string[] } {
  const given: Answers = {
    instanceExists: true,
    registrationEnded: false,
    stopping: false,
    canWaitForKind: true,
    retries: 0,
    maxRetries: 3,
    ...answers,
  };
  const asked: string[] = [];
  const ask = <K extends keyof Answers>(fact: K) => {
    asked.push(fact);
    return given[fact];
  };
  return {
    asked,
    instanceExists: () => ask('instanceExists'),
    registrationEnded: () => ask('registrationEnded'),
    stopping: () => ask('stopping'),
    canWaitForKind: () => ask('canWaitForKind'),
    retries: () => ask('retries'),
    maxRetries: given.maxRetries,
  };
}

const failed = (err: unknown, more: Partial<PassFailure> = {}): PassFailure => ({ err, thrownSync: false, ...more });
const cutBy = (reason: PassCancelReason): PassCancelledError => new PassCancelledError(reason, `cut off: ${reason}`);
const notFound = (named?: string): FakeStatusError =>
  new FakeStatusError(404, named === undefined ? 'configmaps "a-config" not found' : `webapps "${named}" not found`, named);

describe('retry rules: a pass that resolved', () => {
  it('forgets the item: its failure count, backoff and failure record', () => {
    expect(SUCCEEDED).toEqual({ action: 'forget', outcome: 'success' });
  });
});

describe('retry rules: requeue signals', () => {
  const ready = (): Promise<void> => Promise.resolve();
  it.each<[string, unknown, RetryDecision]>([
    ['NoRequeue forgets the item', requeue.none(new Error('not mine')), { action: 'forget', outcome: 'no_requeue' }],
    ['RequeueNeeded queues it again at once', requeue.needed(), { action: 'requeue', outcome: 'requeue' }],
    [
      'a write refused by its precondition (StaleReadError) queues it again at once',
      new StaleReadError('PATCH configmaps ns/b', webapps, 'ns', 'b', '7', Object.assign(new Error('409'), { status: 409 })),
      { action: 'requeue', outcome: 'requeue' },
    ],
    [
      'RequeueNeededAfter queues it again after its delay',
      requeue.neededAfter(new Error('rollout'), 5_000),
      { action: 'requeue_after', outcome: 'requeue_after', delayMs: 5_000 },
    ],
    ['RequeueWhen parks it on its promise', new RequeueWhen('lease', ready), { action: 'wait', outcome: 'waiting', ready }],
    [
      'a signal wrapped as a cause counts as the signal',
      new Error('outer', { cause: requeue.neededAfter(null, 250) }),
      { action: 'requeue_after', outcome: 'requeue_after', delayMs: 250 },
    ],
    ['a signal wrapping a NotFound is the signal', requeue.none(notFound('a')), { action: 'forget', outcome: 'no_requeue' }],
  ])('%s, asking nothing about the item', (_what, err, decision) => {
    const state = stateOf();
    expect(decideAfterFailure(failed(err), a, state)).toEqual(decision);
    expect(state.asked).toEqual([]);
  });

  it('a requeue signal wins over a pass cut off, a registration that ended and a pool stopping', () => {
    const state = stateOf({ registrationEnded: true, stopping: true });
    expect(decideAfterFailure(failed(requeue.needed(), { cutBy: cutBy('deleted') }), a, state)).toEqual({
      action: 'requeue',
      outcome: 'requeue',
    });
    expect(decideAfterFailure(failed(requeue.none(), { cutBy: cutBy('deregistered') }), a, state)).toEqual({
      action: 'forget',
      outcome: 'no_requeue',
    });
    expect(state.asked).toEqual([]);
  });
});

describe('retry rules: a kind that cannot be watched', () => {
  const notServed = new KindNotServedError(webapps, { status: 404, cause: new FakeStatusError(404) });
  const forbidden = new WatchForbiddenError(webapps, 'watch', { namespace: 'ns', status: 403 });

  it('parks the item on the kind when the watch manager can tell when it is back: waiting, not failing', () => {
    for (const refusal of [notServed, forbidden]) {
      const state = stateOf();
      expect(decideAfterFailure(failed(new Error('cannot watch', { cause: refusal })), a, state)).toEqual({
        action: 'wait_for_kind',
        outcome: 'waiting',
        refusal,
      });
      expect(state.asked).toEqual(['canWaitForKind']);
    }
  });

  it('queues it again after KIND_RECHECK_MS when the watch manager cannot tell', () => {
    expect(decideAfterFailure(failed(notServed), a, stateOf({ canWaitForKind: false }))).toEqual({
      action: 'recheck_kind',
      outcome: 'waiting',
      refusal: notServed,
      delayMs: KIND_RECHECK_MS,
    });
    expect(KIND_RECHECK_MS).toBe(60_000);
  });

  it('waits for the kind even on a pass cut off or a pool stopping: a refusal is no failure', () => {
    const state = stateOf({ registrationEnded: true, stopping: true });
    expect(decideAfterFailure(failed(notServed, { cutBy: cutBy('stopping') }), a, state)).toMatchObject({ action: 'wait_for_kind' });
  });
});

describe('retry rules: NotFound', () => {
  it('forgets an instance that is gone from its parent cache, asking nothing more', () => {
    const state = stateOf({ instanceExists: false });
    expect(decideAfterFailure(failed(notFound()), a, state)).toEqual({ action: 'forget', outcome: 'not_found' });
    expect(decideAfterFailure(failed(new Error('wrapped', { cause: notFound() })), a, state)).toEqual({
      action: 'forget',
      outcome: 'not_found',
    });
    expect(state.asked).toEqual(['instanceExists', 'instanceExists']);
  });

  it('forgets a cached instance when the 404 names it: deleted before its informer heard', () => {
    expect(decideAfterFailure(failed(notFound('a')), a, stateOf())).toEqual({ action: 'forget', outcome: 'not_found' });
  });

  it('takes a 404 of something else while the instance is cached as a handler error, retried with backoff', () => {
    const state = stateOf({ retries: 1 });
    expect(decideAfterFailure(failed(notFound()), a, state)).toEqual({ action: 'retry', outcome: 'error', retries: 1 });
    expect(decideAfterFailure(failed(notFound('b')), a, stateOf())).toMatchObject({ action: 'retry' });
    expect(state.asked).toEqual(['instanceExists', 'registrationEnded', 'stopping', 'retries']);
  });

  it('takes a 404 of something else on a pass cut off as cut off', () => {
    expect(decideAfterFailure(failed(notFound(), { cutBy: cutBy('deleted') }), a, stateOf())).toEqual({
      action: 'cancel',
      outcome: 'cancelled',
      reason: 'deleted',
    });
  });

  it('namesInstance: a 404 in the cause chain naming the instance, and nothing else', () => {
    expect(namesInstance(notFound('a'), a)).toBe(true);
    expect(namesInstance(new Error('outer', { cause: notFound('a') }), a)).toBe(true);
    expect(namesInstance(notFound('b'), a)).toBe(false);
    expect(namesInstance(notFound(), a)).toBe(false);
    expect(namesInstance(new FakeStatusError(409, 'conflict', 'a'), a)).toBe(false);
    expect(namesInstance(new Error('boom'), a)).toBe(false);
  });
});

describe('retry rules: a pass cut off by normal operation', () => {
  const boom = new Error('boom');

  it.each<PassCancelReason>(['deregistered', 'deleted', 'stopping', 'range-lost'])(
    'is cancelled for what cut its signal (%s), asking nothing more',
    (reason) => {
      const state = stateOf({ registrationEnded: true, stopping: true });
      expect(decideAfterFailure(failed(boom, { cutBy: cutBy(reason) }), a, state)).toEqual({
        action: 'cancel',
        outcome: 'cancelled',
        reason,
      });
      expect(state.asked).toEqual([]);
    },
  );

  it('is cancelled as deregistered when its registration ended, before asking whether the pool is stopping', () => {
    const state = stateOf({ registrationEnded: true, stopping: true });
    expect(decideAfterFailure(failed(boom), a, state)).toEqual({ action: 'cancel', outcome: 'cancelled', reason: 'deregistered' });
    expect(state.asked).toEqual(['registrationEnded']);
  });

  it('is cancelled as stopping when the pool is stopping (shutdown, the end of a term)', () => {
    const state = stateOf({ stopping: true });
    expect(decideAfterFailure(failed(boom), a, state)).toEqual({ action: 'cancel', outcome: 'cancelled', reason: 'stopping' });
    expect(state.asked).toEqual(['registrationEnded', 'stopping']);
  });

  it('is cancelled for the reason of a PassCancelledError the handler rejected with, also as a cause (a lost shard range)', () => {
    expect(decideAfterFailure(failed(cutBy('range-lost')), a, stateOf())).toEqual({
      action: 'cancel',
      outcome: 'cancelled',
      reason: 'range-lost',
    });
    expect(decideAfterFailure(failed(new Error('wrapped', { cause: cutBy('range-lost') })), a, stateOf())).toMatchObject({
      reason: 'range-lost',
    });
  });

  it('applies to a pass that could not begin (thrown synchronously) too', () => {
    expect(decideAfterFailure(failed(boom, { thrownSync: true }), a, stateOf({ stopping: true }))).toMatchObject({
      action: 'cancel',
      reason: 'stopping',
    });
  });
});

describe('retry rules: handler errors', () => {
  it('retries with backoff while the queue counts fewer failures than queueMaxRetries, then drops the item', () => {
    const boom = new Error('boom');
    expect(decideAfterFailure(failed(boom), a, stateOf({ retries: 0, maxRetries: 3 }))).toEqual({
      action: 'retry',
      outcome: 'error',
      retries: 0,
    });
    expect(decideAfterFailure(failed(boom), a, stateOf({ retries: 2, maxRetries: 3 }))).toEqual({
      action: 'retry',
      outcome: 'error',
      retries: 2,
    });
    expect(decideAfterFailure(failed(boom), a, stateOf({ retries: 3, maxRetries: 3 }))).toEqual({
      action: 'drop',
      outcome: 'dropped',
      retries: 3,
    });
    expect(decideAfterFailure(failed(boom), a, stateOf({ retries: 0, maxRetries: 0 }))).toEqual({
      action: 'drop',
      outcome: 'dropped',
      retries: 0,
    });
  });

  it('asks the registration, the pool and the queue, in that order', () => {
    const state = stateOf();
    decideAfterFailure(failed(new Error('boom')), a, state);
    expect(state.asked).toEqual(['registrationEnded', 'stopping', 'retries']);
  });

  it('takes a pass past its reconcileTimeoutMs (its ReconcileTimeoutError) as a handler error, not a cut-off', () => {
    const timeout = new ReconcileTimeoutError(webapps, { namespace: 'ns', name: 'a' }, 1_000);
    expect(decideAfterFailure(failed(timeout), a, stateOf({ retries: 1 }))).toEqual({ action: 'retry', outcome: 'error', retries: 1 });
  });

  it('decides the same for a handler that threw before returning its promise', () => {
    expect(decideAfterFailure(failed(new Error('thrown'), { thrownSync: true }), a, stateOf())).toEqual({
      action: 'retry',
      outcome: 'error',
      retries: 0,
    });
  });

  it('takes anything else, including a non-Error value, as a handler error', () => {
    expect(decideAfterFailure(failed('a string'), a, stateOf())).toMatchObject({ action: 'retry' });
    expect(decideAfterFailure(failed(undefined), a, stateOf())).toMatchObject({ action: 'retry' });
  });
});

/** RetryRules over fakes: a fake queue on a fake clock, a fresh activity, the item's parent registered. */
function rulesOver(
  options: { readonly queueMaxRetries?: number; readonly instanceExists?: boolean; readonly noWhenAvailable?: boolean } = {},
) {
  const clock = new FakeClock();
  const queue = new FakeWorkQueue<ObjectIdentifiers>({ key: workItemKey, clock, limits: { minRetryDelayMs: 100, maxRetryDelayMs: 1_000 } });
  const watchManager = new FakeWatchManager();
  if (options.noWhenAvailable === true) Object.assign(watchManager, { whenAvailable: undefined });
  const parent: ParentHandler = { gvr: webapps, handler: () => Promise.resolve() };
  const parents = new Map<string, ParentHandler>([[gvrKey(webapps), parent]]);
  const logs = new LogRecorder('debug');
  const observer = new ObserverRecorder();
  const activity = new WorkerActivity(clock);
  const stop = new AbortController();
  const rules = new RetryRules({
    queue,
    queueMaxRetries: options.queueMaxRetries ?? 3,
    parents,
    watchManager,
    signal: stop.signal,
    observer,
    logger: logs.logger,
    activity,
    networkLog: new LogSummarizer({ logger: logs.logger, clock }),
    triggers: new TriggerLog(),
    instanceExists: () => options.instanceExists ?? true,
  });
  const ops = (): string[] =>
    queue.calls.filter((c) => c.op !== 'done').map((c) => (c.delayMs === undefined ? c.op : `${c.op}:${c.delayMs}`));
  /** One earlier failure: counted by the queue (backing off) and recorded. */
  const failedBefore = (): void => {
    queue.addRateLimited(a);
    activity.markBackingOff(workItemKey(a), a);
    activity.recordFailure(workItemKey(a), {
      item: a,
      error: 'Error: before',
      reason: 'Error',
      failures: 1,
      nextRetryAtMs: 100,
      dropped: false,
    });
    queue.calls.length = 0;
  };
  return { rules, queue, watchManager, parent, parents, logs, observer, activity, stop, ops, failedBefore };
}

describe('RetryRules: carrying out each decision', () => {
  const key = workItemKey(a);

  it('forgets the item after a success: count, backoff and failure record', () => {
    const r = rulesOver();
    r.failedBefore();
    expect(r.rules.afterSuccess(a, key)).toBe('success');
    expect(r.ops()).toEqual(['forget']);
    expect(r.queue.numRequeues(a)).toBe(0);
    expect(r.activity.recentFailures()).toEqual([]);
    expect(r.logs.records).toEqual([]);
  });

  it('re-adds the item at once on RequeueNeeded, keeping its failure count but clearing its record', () => {
    const r = rulesOver();
    r.failedBefore();
    expect(r.rules.afterFailure(r.parent, a, key, failed(requeue.needed()), undefined)).toBe('requeue');
    expect(r.ops()).toEqual(['add']);
    expect(r.queue.calls[0]).toMatchObject({ source: 'requeue' });
    expect(r.queue.numRequeues(a)).toBe(1);
    expect(r.activity.recentFailures()).toEqual([]);
  });

  it('resets the failure count before re-adding the item after its delay on RequeueNeededAfter', () => {
    const r = rulesOver();
    r.failedBefore();
    expect(r.rules.afterFailure(r.parent, a, key, failed(requeue.neededAfter(null, 5_000)), undefined)).toBe('requeue_after');
    expect(r.ops()).toEqual(['forget', 'addAfter:5000']);
    expect(r.queue.numRequeues(a)).toBe(0);
  });

  it('parks the item on a refused kind through whenAvailable, once, and logs it at debug only', async () => {
    const r = rulesOver();
    r.failedBefore();
    const refusal = new KindNotServedError(webapps);
    expect(r.rules.afterFailure(r.parent, a, key, failed(refusal), undefined)).toBe('waiting');
    expect(r.rules.afterFailure(r.parent, a, key, failed(refusal), undefined)).toBe('waiting');
    await flushMicrotasks();
    expect(r.ops()).toEqual(['forget', 'forget']);
    expect(r.activity.parkedCount()).toBe(1);
    expect(r.watchManager.availabilityWaitsFor(webapps)).toBe(1);
    expect(r.logs.find('pass waits for a kind').map((l) => l.level)).toEqual([20, 20]);
    expect(r.observer.handlerErrors).toEqual([]);
    r.watchManager.announceAvailable(webapps);
    await flushMicrotasks();
    expect(r.ops()).toEqual(['forget', 'forget', 'add']);
  });

  it('re-adds an item refused a kind after KIND_RECHECK_MS without whenAvailable', () => {
    const r = rulesOver({ noWhenAvailable: true });
    expect(r.rules.afterFailure(r.parent, a, key, failed(new KindNotServedError(webapps)), undefined)).toBe('waiting');
    expect(r.ops()).toEqual(['forget', `addAfter:${KIND_RECHECK_MS}`]);
    expect(r.activity.parkedCount()).toBe(0);
  });

  it('forgets an item cut off, logging once at info with the reason in words, not as a handler error', () => {
    const r = rulesOver();
    r.failedBefore();
    expect(r.rules.afterFailure(r.parent, a, key, failed(new Error('aborted'), { cutBy: cutBy('deleted') }), undefined)).toBe('cancelled');
    expect(r.ops()).toEqual(['forget']);
    expect(r.activity.recentFailures()).toEqual([]);
    expect(r.observer.handlerErrors).toEqual([]);
    expect(r.logs.records).toMatchObject([
      {
        level: 30,
        item: key,
        reason: 'deleted',
        error: 'Error: aborted',
        msg: `pass of ${key} cut off (the instance was deleted); not retried`,
      },
    ]);
  });

  it('takes a registration that ended from the parents it reads: a parent registered again is a new registration', () => {
    const r = rulesOver();
    r.parents.set(gvrKey(webapps), { ...r.parent });
    expect(r.rules.afterFailure(r.parent, a, key, failed(new Error('boom')), undefined)).toBe('cancelled');
    expect(r.logs.find('cut off')[0]).toMatchObject({ reason: 'deregistered' });
  });

  it('takes the pool as stopping once its signal aborted', () => {
    const r = rulesOver();
    r.stop.abort();
    expect(r.rules.afterFailure(r.parent, a, key, failed(new Error('boom')), undefined)).toBe('cancelled');
    expect(r.logs.find('cut off')[0]).toMatchObject({ reason: 'stopping' });
  });

  it('retries a handler error with backoff: the observer hears it, one error line, the failure recorded with its next retry', () => {
    const r = rulesOver();
    const err = new Error('boom');
    expect(r.rules.afterFailure(r.parent, a, key, failed(err, { thrownSync: true }), undefined)).toBe('error');
    expect(r.ops()).toEqual(['addRateLimited:100']);
    expect(r.observer.handlerErrors).toEqual([{ gvr: webapps, err, thrownSync: true }]);
    expect(r.logs.errors()).toMatchObject([
      { item: key, retries: 0, thrownSync: true, msg: 'handler failed; retrying with backoff: Error: boom' },
    ]);
    expect(r.activity.recentFailures()).toEqual([
      { item: a, atMs: 0, error: 'Error: boom', reason: 'Error', failures: 1, nextRetryAtMs: 100, dropped: false },
    ]);
  });

  it('drops an item with no retry left: forgotten, one error line, the failure recorded as dropped', () => {
    const r = rulesOver({ queueMaxRetries: 1 });
    r.failedBefore();
    expect(r.rules.afterFailure(r.parent, a, key, failed(new Error('boom')), undefined)).toBe('dropped');
    expect(r.ops()).toEqual(['forget']);
    expect(r.observer.handlerErrors).toHaveLength(1);
    expect(r.logs.errors()).toMatchObject([
      { level: 50, item: key, retries: 1, msg: `handler failed after queueMaxRetries=1 retries; dropping ${key}: Error: boom` },
    ]);
    expect(r.activity.recentFailures()).toMatchObject([{ item: a, failures: 2, nextRetryAtMs: undefined, dropped: true }]);
  });

  it('retries a NotFound of something else on a cached instance, and forgets a gone one silently', () => {
    const cached = rulesOver({ instanceExists: true });
    expect(cached.rules.afterFailure(cached.parent, a, key, failed(notFound()), undefined)).toBe('error');
    expect(cached.ops()).toEqual(['addRateLimited:100']);
    const gone = rulesOver({ instanceExists: false });
    expect(gone.rules.afterFailure(gone.parent, a, key, failed(notFound()), undefined)).toBe('not_found');
    expect(gone.ops()).toEqual(['forget']);
    expect(gone.logs.records.filter((l) => l.level >= 40)).toEqual([]);
  });
});
