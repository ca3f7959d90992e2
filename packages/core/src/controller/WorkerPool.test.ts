import { afterEach, describe, expect, it } from '@jest/globals';
import { gvrKey, type GroupVersionResource, type ObjectIdentifiers } from '../gvr.js';
import type { Handler } from '../handler.js';
import { requeue } from '../requeue.js';
import {
  Deferred,
  FakeClock,
  FakeStatusError,
  FakeWatchCoordinator,
  FakeWatchManager,
  FakeWorkQueue,
  fakeObject,
  flushMicrotasks,
  HandlerRecorder,
  LogRecorder,
  ObserverRecorder,
  waitFor,
  type FakeInformer,
  type FakeInstancePass,
  type LogRecord,
} from '../testing/index.js';
import { KindNotServedError, WatchForbiddenError } from '../KindUnavailableError.js';
import { KIND_RECHECK_MS } from './retryRules.js';
import { WorkerPool, type ParentHandler } from './WorkerPool.js';
import { workItemKey } from './workItemKey.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const item = (name: string): ObjectIdentifiers => ({ gvr: webapps, namespace: 'ns', name });
const a = item('a');
const b = item('b');

const MIN_RETRY_MS = 100;
const MAX_RETRY_MS = 1_000;

interface Pool {
  readonly pool: WorkerPool;
  readonly queue: FakeWorkQueue<ObjectIdentifiers>;
  readonly clock: FakeClock;
  readonly coordinator: FakeWatchCoordinator;
  /** The parent informer: what it caches is what the pool takes to exist. */
  readonly informer: FakeInformer;
  readonly watchManager: FakeWatchManager;
  readonly parents: Map<string, ParentHandler>;
  readonly abort: AbortController;
  readonly logs: LogRecorder;
  readonly observer: ObserverRecorder;
  readonly handler: HandlerRecorder;
  /** The promise of `pool.run(...)`. */
  readonly running: Promise<void>;
}

interface PoolOptions {
  readonly impl?: Handler;
  readonly queueMaxRetries?: number;
  readonly workers?: number;
  readonly coordinator?: FakeWatchCoordinator;
  readonly queue?: FakeWorkQueue<ObjectIdentifiers>;
  /** Default 'debug'. */
  readonly logLevel?: 'debug' | 'info';
  /** A watch manager without `whenAvailable` (one that cannot tell when a refused kind is back). */
  readonly noWhenAvailable?: boolean;
}

const started: Pool[] = [];
const gates: Deferred[] = [];

afterEach(async () => {
  for (const gate of gates.splice(0)) gate.resolve();
  for (const p of started.splice(0)) {
    p.queue.shutdown();
    await p.running;
  }
});

function gate(): Deferred {
  const d = new Deferred();
  gates.push(d);
  return d;
}

/** A pool over fakes only: a fake queue on a fake clock, a fake watch manager's informer as the parent cache. */
async function startPool(options: PoolOptions = {}): Promise<Pool> {
  const clock = new FakeClock();
  const queue =
    options.queue ??
    new FakeWorkQueue<ObjectIdentifiers>({
      key: workItemKey,
      clock,
      limits: { minRetryDelayMs: MIN_RETRY_MS, maxRetryDelayMs: MAX_RETRY_MS },
    });
  const watchManager = new FakeWatchManager();
  if (options.noWhenAvailable === true) Object.assign(watchManager, { whenAvailable: undefined });
  await watchManager.ensureWatch(webapps, 'parent');
  const informer = watchManager.getInformer(webapps) as FakeInformer;
  const coordinator = options.coordinator ?? new FakeWatchCoordinator();
  const handler = new HandlerRecorder(options.impl);
  const parents = new Map<string, ParentHandler>([[gvrKey(webapps), { gvr: webapps, handler: handler.handler }]]);
  const abort = new AbortController();
  const logs = new LogRecorder(options.logLevel ?? 'debug');
  const observer = new ObserverRecorder();
  const pool = new WorkerPool({
    queue,
    queueMaxRetries: options.queueMaxRetries ?? 3,
    parents,
    watchManager,
    watchCoordinator: coordinator,
    signal: abort.signal,
    clock,
    observer,
    logger: logs.logger,
  });
  const running = pool.run(options.workers ?? 1);
  const p: Pool = { pool, queue, clock, coordinator, informer, watchManager, parents, abort, logs, observer, handler, running };
  started.push(p);
  return p;
}

/** Puts `it` in the parent informer's cache: the instance exists. */
function cache(p: Pool, it: ObjectIdentifiers): void {
  p.informer.add(fakeObject({ namespace: it.namespace, name: it.name }));
}

/** Waits until `count` items have been reconciled (any outcome) and the queue holds nothing queued or handed out. */
async function settled(p: Pool, count: number): Promise<void> {
  await waitFor(() => p.observer.reconciles.length >= count && p.queue.len() === 0 && p.queue.processing().length === 0, {
    message: `${count} reconciles and an idle queue`,
  });
}

const ops = (p: Pool, ...kinds: string[]): string[] =>
  p.queue.calls.filter((c) => kinds.includes(c.op)).map((c) => (c.delayMs === undefined ? c.op : `${c.op}:${c.delayMs}`));

const withMessage = (p: Pool, text: string): LogRecord[] => p.logs.find(text);

describe('WorkerPool: handler outcomes', () => {
  it('runs the handler with the instance, its parent GVR, the shared signal and a pass; success forgets the item', async () => {
    const p = await startPool({
      impl: async (_req, ctx) => {
        ctx.logger.info('reconciling');
        p.clock.advance(7);
      },
    });
    p.queue.addRateLimited(a); // one earlier failure
    expect(p.queue.numRequeues(a)).toBe(1);
    p.clock.advance(MIN_RETRY_MS);
    await settled(p, 1);

    const [call] = p.handler.calls;
    expect(call!.req).toEqual({ namespace: 'ns', name: 'a' });
    expect(call!.ctx.gvr).toEqual(webapps);
    expect(call!.ctx.signal.aborted).toBe(false);
    expect(call!.ctx.watcher).toBe(p.coordinator.passes[0]);
    expect(p.queue.numRequeues(a)).toBe(0);
    expect(ops(p, 'forget', 'add', 'addAfter', 'addRateLimited')).toEqual([`addRateLimited:${MIN_RETRY_MS}`, 'forget']);
    expect(p.observer.reconciles).toEqual([{ gvr: webapps, durationMs: 7, outcome: 'success' }]);
    expect(withMessage(p, 'reconciling')[0]).toMatchObject({ gvr: gvrKey(webapps), instance: 'ns/a' });
  });

  it('forgets an item whose handler rejects with NoRequeue, without retrying it', async () => {
    const p = await startPool({ impl: () => Promise.reject(requeue.none(new Error('not mine'))) });
    p.queue.add(a);
    await settled(p, 1);
    expect(p.observer.outcomes()).toEqual(['no_requeue']);
    expect(ops(p, 'forget', 'add', 'addAfter', 'addRateLimited')).toEqual(['add', 'forget']);
    expect(p.queue.waiting()).toEqual([]);
    expect(p.observer.handlerErrors).toEqual([]);
  });

  it('re-adds an item at once on RequeueNeeded, without backoff and keeping its failure count', async () => {
    const results: Array<() => Promise<void>> = [
      () => Promise.reject(new Error('first try fails')),
      () => Promise.reject(requeue.needed()),
      () => Promise.resolve(),
    ];
    const p = await startPool({ impl: () => results.shift()!() });
    p.queue.add(a);
    await settled(p, 1);
    expect(p.queue.numRequeues(a)).toBe(1);
    await p.clock.advanceAsync(MIN_RETRY_MS);
    // The requeue needs no clock: the third pass follows the second at once.
    await settled(p, 3);
    expect(p.observer.outcomes()).toEqual(['error', 'requeue', 'success']);
    expect(ops(p, 'add', 'addAfter', 'addRateLimited')).toEqual(['add', `addRateLimited:${MIN_RETRY_MS}`, 'add']);
    expect(p.queue.calls.filter((c) => c.op === 'forget')).toHaveLength(1); // by the success only
  });

  it('on RequeueNeededAfter resets the failure count and re-adds the item once its delay has passed', async () => {
    const results: Array<() => Promise<void>> = [
      () => Promise.reject(new Error('first try fails')),
      () => Promise.reject(requeue.neededAfter(new Error('waiting for rollout'), 5_000)),
      () => Promise.resolve(),
    ];
    const p = await startPool({ impl: () => results.shift()!() });
    p.queue.add(a);
    await settled(p, 1);
    await p.clock.advanceAsync(MIN_RETRY_MS);
    await settled(p, 2);
    expect(p.queue.numRequeues(a)).toBe(0);
    expect(p.queue.waiting()).toEqual([{ item: a, readyAt: p.clock.now() + 5_000 }]);
    await p.clock.advanceAsync(4_999);
    expect(p.handler.count()).toBe(2);
    await p.clock.advanceAsync(1);
    await settled(p, 3);
    expect(p.observer.outcomes()).toEqual(['error', 'requeue_after', 'success']);
  });

  it('forgets an item whose handler fails with NotFound, silently when the instance is gone', async () => {
    const p = await startPool({ impl: () => Promise.reject(new FakeStatusError(404)) });
    p.queue.add(a);
    await settled(p, 1);
    expect(p.observer.outcomes()).toEqual(['not_found']);
    expect(p.queue.waiting()).toEqual([]);
    expect(ops(p, 'forget')).toEqual(['forget']);
    expect(p.logs.records.filter((r) => r.level >= 40)).toEqual([]);
    expect(p.observer.handlerErrors).toEqual([]);
  });

  it('retries with backoff a handler failing with NotFound while the instance is still cached: a 404 of something else is no deletion', async () => {
    const p = await startPool({ impl: () => Promise.reject(new FakeStatusError(404, 'configmaps "a-config" not found')) });
    cache(p, a);
    p.queue.add(a);
    await settled(p, 1);
    expect(p.observer.outcomes()).toEqual(['error']);
    expect(ops(p, 'addRateLimited')).toEqual([`addRateLimited:${MIN_RETRY_MS}`]);
    expect(p.observer.handlerErrors).toHaveLength(1);
    await p.clock.advanceAsync(MIN_RETRY_MS);
    await settled(p, 2);
    expect(p.handler.count()).toBe(2);
  });

  it('forgets a still-cached instance whose pass failed with a 404 naming it: deleted before its informer heard', async () => {
    const p = await startPool({ impl: () => Promise.reject(new FakeStatusError(404, 'webapps "a" not found', 'a')) });
    cache(p, a);
    p.queue.add(a);
    await settled(p, 1);
    expect(p.observer.outcomes()).toEqual(['not_found']);
    expect(p.queue.waiting()).toEqual([]);
    expect(p.observer.handlerErrors).toEqual([]);
  });

  it('parks a pass failing on a kind that is not served or forbidden: no failure, no backoff, its declarations kept; it runs again when the kind is available', async () => {
    const refusals = [
      new Error('cannot watch', { cause: new KindNotServedError(webapps, { status: 404, cause: new FakeStatusError(404) }) }),
      new WatchForbiddenError(webapps, 'watch', { namespace: 'ns', status: 403 }),
    ];
    const p = await startPool({ impl: () => (refusals.length === 0 ? Promise.resolve() : Promise.reject(refusals.shift()!)) });
    cache(p, a);
    p.queue.add(a);
    await settled(p, 1);
    expect(p.observer.outcomes()).toEqual(['waiting']);
    expect(p.observer.handlerErrors).toEqual([]);
    expect(ops(p, 'addRateLimited', 'addAfter')).toEqual([]);
    expect(p.queue.numRequeues(a)).toBe(0);
    expect(p.coordinator.calls.filter((c) => c.op === 'endPass')).toMatchObject([{ commit: true }]);
    expect(p.logs.records.filter((r) => r.level >= 40)).toEqual([]);
    expect(p.pool.activity().recentFailures()).toEqual([]);
    expect(p.watchManager.availabilityWaitsFor(webapps)).toBe(1);
    // Nothing runs it again but the kind: not the clock.
    await p.clock.advanceAsync(KIND_RECHECK_MS * 10);
    expect(p.handler.count()).toBe(1);

    p.watchManager.announceAvailable(webapps);
    await settled(p, 2);
    expect(p.observer.outcomes()).toEqual(['waiting', 'waiting']);
    // Still refused (forbidden now): parked again, one wait.
    expect(p.watchManager.availabilityWaitsFor(webapps)).toBe(1);
    p.watchManager.announceAvailable(webapps);
    await settled(p, 3);
    expect(p.observer.outcomes()).toEqual(['waiting', 'waiting', 'success']);
    expect(p.queue.numRequeues(a)).toBe(0);
  });

  it('parks each item once, and ends the waits of a deregistered parent without running it again', async () => {
    const p = await startPool({ impl: () => Promise.reject(new KindNotServedError(webapps)) });
    cache(p, a);
    p.queue.add(a);
    await settled(p, 1);
    p.queue.add(a);
    await settled(p, 2);
    expect(p.watchManager.availabilityWaitsFor(webapps)).toBe(1);
    expect(p.pool.activity().parkedCount()).toBe(1);
    p.pool.forgetParent(webapps);
    await flushMicrotasks();
    expect(p.watchManager.availabilityWaitsFor(webapps)).toBe(0);
    expect(p.pool.activity().parkedCount()).toBe(0);
    expect(p.queue.len()).toBe(0);
    expect(p.handler.count()).toBe(2);
  });

  it('without a watch manager that can tell, runs a parked item again after KIND_RECHECK_MS', async () => {
    const p = await startPool({ impl: () => Promise.reject(new KindNotServedError(webapps)), noWhenAvailable: true });
    cache(p, a);
    p.queue.add(a);
    await settled(p, 1);
    expect(ops(p, 'addAfter')).toEqual([`addAfter:${KIND_RECHECK_MS}`]);
    await p.clock.advanceAsync(KIND_RECHECK_MS);
    await settled(p, 2);
    expect(p.handler.count()).toBe(2);
  });

  it('retries a failing handler with per-item exponential backoff until queueMaxRetries, then drops the item', async () => {
    const p = await startPool({ impl: () => Promise.reject(new Error('boom')), queueMaxRetries: 3 });
    p.queue.add(a);
    p.queue.add(b);
    await settled(p, 2);
    for (let pass = 0; pass < 3; pass++) {
      await p.clock.advanceAsync(MAX_RETRY_MS);
      await settled(p, 4 + 2 * pass);
    }
    expect(p.observer.outcomes()).toEqual(['error', 'error', 'error', 'error', 'error', 'error', 'dropped', 'dropped']);
    expect(ops(p, 'addRateLimited')).toEqual([
      'addRateLimited:100',
      'addRateLimited:100',
      'addRateLimited:200',
      'addRateLimited:200',
      'addRateLimited:400',
      'addRateLimited:400',
    ]);
    expect(p.queue.numRequeues(a)).toBe(0);
    expect(p.queue.waiting()).toEqual([]);
    const dropped = withMessage(p, 'after queueMaxRetries=3 retries; dropping');
    expect(dropped.map((r) => r['item'])).toEqual([workItemKey(a), workItemKey(b)]);
    expect(dropped[0]).toMatchObject({ level: 50, retries: 3 });
    expect(withMessage(p, 'retrying with backoff').map((r) => r['retries'])).toEqual([0, 0, 1, 1, 2, 2]);
    expect(p.observer.handlerErrors.map((e) => e.thrownSync)).toEqual(Array<boolean>(8).fill(false));
    await p.clock.advanceAsync(10 * MAX_RETRY_MS);
    expect(p.handler.count()).toBe(8);
  });

  it('contains a handler that throws before returning a promise, as one that rejects, and says so', async () => {
    let calls = 0;
    const p = await startPool({
      impl: () => {
        if (calls++ === 0) throw new Error('thrown synchronously');
        return Promise.resolve();
      },
    });
    p.queue.add(a);
    await settled(p, 1);
    expect(p.observer.handlerErrors).toEqual([{ gvr: webapps, err: expect.any(Error), thrownSync: true }]);
    expect(withMessage(p, 'retrying with backoff')[0]).toMatchObject({ thrownSync: true });
    await p.clock.advanceAsync(MIN_RETRY_MS);
    await settled(p, 2);
    expect(p.observer.outcomes()).toEqual(['error', 'success']);
  });

  it('drops an item of a parent that is not registered without running anything', async () => {
    const p = await startPool();
    p.parents.clear();
    p.queue.add(a);
    await settled(p, 1);
    expect(p.handler.count()).toBe(0);
    expect(p.coordinator.passes).toEqual([]);
    expect(p.observer.reconciles).toEqual([{ gvr: webapps, durationMs: 0, outcome: 'dropped' }]);
    expect(ops(p, 'forget')).toEqual(['forget']);
    expect(withMessage(p, 'not registered')[0]).toMatchObject({ level: 20, item: workItemKey(a) });
  });
});

describe('WorkerPool: error logs', () => {
  /** Shaped like client-node's ApiException: a banner message with the body and headers, `code`, and the Status body as text. */
  function apiException(): Error {
    const body = JSON.stringify({ kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'configmaps "x" already exists' });
    const headers = { 'content-type': 'application/json', 'audit-id': 'b0e5c1' };
    return Object.assign(
      new Error(`HTTP-Code: 409\nMessage: Unknown API Status Code!\nBody: ${body}\nHeaders: ${JSON.stringify(headers)}`),
      {
        code: 409,
        body,
        headers,
      },
    );
  }

  it('logs an API error as one compact line (status, reason, message) at error level, and in full at debug level', async () => {
    const p = await startPool({ impl: () => Promise.reject(apiException()) });
    p.queue.add(a);
    await settled(p, 1);
    const [line, ...more] = p.logs.errors();
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      status: 409,
      reason: 'AlreadyExists',
      error: '409 AlreadyExists: configmaps "x" already exists',
      item: workItemKey(a),
    });
    expect(line!.msg).toBe('handler failed; retrying with backoff: 409 AlreadyExists: configmaps "x" already exists');
    expect(line).not.toHaveProperty('err');
    expect(JSON.stringify(line)).not.toContain('audit-id');
    const [full] = withMessage(p, 'handler error in full');
    expect(full).toMatchObject({ level: 20, item: workItemKey(a) });
    expect(JSON.stringify(full!['err'])).toContain('audit-id');
  });

  it('keeps the error with its stack at error level when it is not an API error', async () => {
    const p = await startPool({ impl: () => Promise.reject(new TypeError('x is undefined')) });
    p.queue.add(a);
    await settled(p, 1);
    const [line] = p.logs.errors();
    expect(line!.msg).toBe('handler failed; retrying with backoff: TypeError: x is undefined');
    expect(line!['err']).toMatchObject({ type: 'TypeError', message: 'x is undefined', stack: expect.stringContaining('TypeError') });
  });
});

describe('WorkerPool: passes and the watch coordinator', () => {
  it.each([
    ['resolves', true, () => Promise.resolve()],
    ['rejects with NoRequeue', true, () => Promise.reject(requeue.none())],
    ['rejects with RequeueNeededAfter', true, () => Promise.reject(requeue.neededAfter(null, 60_000))],
    ['fails with NotFound', false, () => Promise.reject(new FakeStatusError(404))],
    ['fails', false, () => Promise.reject(new Error('boom'))],
  ] as const)('ends the pass of a handler that %s once, with commit %s', async (_what, commit, impl) => {
    const p = await startPool({ impl });
    cache(p, a);
    p.queue.add(a);
    await settled(p, 1);
    expect(p.coordinator.passes.map((pass) => pass.endCalls)).toEqual([[commit]]);
  });

  it('commits the pass of a handler that rejects with RequeueNeeded before the next pass begins', async () => {
    let calls = 0;
    const p = await startPool({ impl: () => (calls++ === 0 ? Promise.reject(requeue.needed()) : Promise.resolve()) });
    cache(p, a);
    p.queue.add(a);
    await settled(p, 2);
    expect(p.coordinator.calls.map((c) => c.op)).toEqual(['beginPass', 'endPass', 'beginPass', 'endPass']);
    expect(p.coordinator.callsOf('endPass').map((c) => c.commit)).toEqual([true, true]);
  });

  it('forgets an instance that is not cached after its pass, whatever the handler returned, and keeps a cached one', async () => {
    const p = await startPool({ impl: (req) => (req.name === 'a' ? Promise.reject(new Error('boom')) : Promise.resolve()) });
    cache(p, b);
    p.queue.add(a);
    p.queue.add(b);
    await settled(p, 2);
    expect(p.coordinator.calls.map((c) => `${c.op}${'instance' in c ? ` ${c.instance.name}` : ''}`)).toEqual([
      'beginPass a',
      'endPass a',
      'removeInstance a',
      'beginPass b',
      'endPass b',
    ]);
  });

  it('forgets a cached instance whose parent was deregistered while its handler ran', async () => {
    const held = gate();
    const p = await startPool({ impl: () => held.promise });
    cache(p, a);
    p.queue.add(a);
    await waitFor(() => p.pool.isInFlight(a));
    expect(p.pool.inFlightKeys()).toEqual([workItemKey(a)]);
    p.parents.delete(gvrKey(webapps));
    held.resolve();
    await settled(p, 1);
    expect(p.coordinator.removedInstances()).toEqual(['ns/a']);
    expect(p.pool.isInFlight(a)).toBe(false);
  });

  it('logs a pass that fails to end, and still marks the item done', async () => {
    class EndFails extends FakeWatchCoordinator {
      override beginPass(...args: Parameters<FakeWatchCoordinator['beginPass']>): FakeInstancePass {
        const pass = super.beginPass(...args);
        pass.end = () => {
          throw new Error('cannot settle');
        };
        return pass;
      }
    }
    const p = await startPool({ coordinator: new EndFails() });
    p.queue.add(a);
    p.queue.add(b);
    await settled(p, 2);
    expect(withMessage(p, 'settling the instance watcher failed').map((r) => r['item'])).toEqual([workItemKey(a), workItemKey(b)]);
    expect(p.observer.outcomes()).toEqual(['success', 'success']);
  });
});

describe('WorkerPool: shutdown', () => {
  it('once the signal aborts, releases the items still queued without running their handler', async () => {
    const held = gate();
    const p = await startPool({ impl: () => held.promise });
    p.queue.add(a);
    p.queue.add(b);
    await waitFor(() => p.pool.isInFlight(a));
    p.abort.abort(new Error('stopping'));
    held.resolve();
    await waitFor(() => p.queue.len() === 0 && p.queue.processing().length === 0);
    expect(p.handler.keys()).toEqual(['ns/a']);
    expect(p.observer.outcomes()).toEqual(['success']);
    expect(p.queue.calls.filter((c) => c.op === 'done').map((c) => c.item.name)).toEqual(['a', 'b']);
  });

  it('does not retry nor count a handler that fails during shutdown as a handler error, and logs it once at info level', async () => {
    const p = await startPool({
      impl: (_req, ctx) =>
        new Promise<void>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true })),
    });
    p.queue.add(a);
    await waitFor(() => p.pool.isInFlight(a));
    p.abort.abort(new Error('stopping'));
    await settled(p, 1);
    expect(p.observer.outcomes()).toEqual(['cancelled']);
    expect(p.observer.handlerErrors).toEqual([]);
    expect(ops(p, 'addRateLimited', 'addAfter', 'add')).toEqual(['add']);
    expect(p.logs.records.filter((r) => r.level >= 40)).toEqual([]);
    const lines = withMessage(p, 'cut off');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, item: workItemKey(a), reason: 'stopping', error: 'Error: stopping' });
    expect(lines[0]!['err']).toBeUndefined();
  });

  it('resolves run once the queue has shut down and every worker returned', async () => {
    const p = await startPool({ workers: 3 });
    let returned = false;
    void p.running.then(() => (returned = true));
    p.queue.add(a);
    await settled(p, 1);
    expect(returned).toBe(false);
    p.queue.shutdown();
    await p.running;
    expect(returned).toBe(true);
  });

  it('ends a worker whose queue get fails, logging why', async () => {
    class GetFails extends FakeWorkQueue<ObjectIdentifiers> {
      override get(): never {
        throw new Error('queue broken');
      }
    }
    const p = await startPool({ queue: new GetFails({ key: workItemKey }), workers: 2 });
    await p.running;
    expect(withMessage(p, 'work queue get failed; worker exits').map((r) => r['worker'])).toEqual([0, 1]);
  });
});

describe('WorkerPool: fairness', () => {
  it('yields to the event loop during back-to-back work, so a handler that requeues itself cannot starve it', async () => {
    // Without the yield this loop would run all LIMIT passes before the immediate below got a turn.
    const LIMIT = 100_000;
    let immediateRan = false;
    let passesBeforeImmediate: number | undefined;
    const p = await startPool({
      impl: () => {
        if (immediateRan || p.handler.count() >= LIMIT) return Promise.resolve();
        return Promise.reject(requeue.needed());
      },
    });
    setImmediate(() => {
      immediateRan = true;
      passesBeforeImmediate = p.handler.count();
    });
    p.queue.add(a);
    await waitFor(() => immediateRan && p.queue.processing().length === 0 && p.queue.len() === 0, { timeoutMs: 15_000 });
    expect(passesBeforeImmediate).toBeGreaterThan(1);
    expect(passesBeforeImmediate).toBeLessThan(LIMIT);
  });
});

describe('WorkerPool: activity', () => {
  it('tracks a running pass from its start on the pool clock, and forgets it when the pass ends', async () => {
    const hold = gate();
    const p = await startPool({ impl: () => hold.promise, workers: 2 });
    p.clock.advance(500);
    p.queue.add(a);
    await waitFor(() => p.pool.isInFlight(a));
    expect(p.pool.activity().inFlight()).toEqual([{ item: a, startedAtMs: 500 }]);
    // A derived pool (a leadership term's) shares the same activity.
    expect(p.pool.derive(p.queue, p.abort.signal).isInFlight(a)).toBe(true);
    hold.resolve();
    await settled(p, 1);
    expect(p.pool.activity().inFlight()).toEqual([]);
  });

  it('records each failing item once, with its count and the ready time the queue gives, newest first; success clears it', async () => {
    let failA = true;
    const p = await startPool({
      impl: (req) => (req.name === 'a' && !failA ? Promise.resolve() : Promise.reject(new Error(`boom ${req.name}`))),
    });
    p.queue.add(a);
    await settled(p, 1);
    p.queue.add(b);
    await settled(p, 2);
    expect(p.pool.activity().recentFailures()).toEqual([
      { item: b, atMs: 0, error: 'Error: boom b', reason: 'Error', failures: 1, nextRetryAtMs: MIN_RETRY_MS, dropped: false },
      { item: a, atMs: 0, error: 'Error: boom a', reason: 'Error', failures: 1, nextRetryAtMs: MIN_RETRY_MS, dropped: false },
    ]);
    await p.clock.advanceAsync(MIN_RETRY_MS);
    await settled(p, 4);
    const failures = p.pool.activity().recentFailures();
    expect(failures.map((f) => [f.item.name, f.failures, f.atMs, f.nextRetryAtMs])).toEqual([
      ['b', 2, MIN_RETRY_MS, 3 * MIN_RETRY_MS],
      ['a', 2, MIN_RETRY_MS, 3 * MIN_RETRY_MS],
    ]);
    failA = false;
    await p.clock.advanceAsync(2 * MIN_RETRY_MS);
    await settled(p, 6);
    expect(
      p.pool
        .activity()
        .recentFailures()
        .map((f) => [f.item.name, f.failures]),
    ).toEqual([['b', 3]]);
  });

  it('marks the failure that used the last retry as dropped, with no next retry', async () => {
    const p = await startPool({ impl: () => Promise.reject(new Error('boom')), queueMaxRetries: 1 });
    p.queue.add(a);
    await settled(p, 1);
    await p.clock.advanceAsync(MAX_RETRY_MS);
    await settled(p, 2);
    expect(p.pool.activity().recentFailures()).toEqual([
      { item: a, atMs: MIN_RETRY_MS, error: 'Error: boom', reason: 'Error', failures: 2, nextRetryAtMs: undefined, dropped: true },
    ]);
  });

  it('summarises a failure once for its log line, its fields and its record', async () => {
    let reads = 0;
    const err = Object.assign(new Error(), {
      code: 409,
      body: { kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' },
    });
    Object.defineProperty(err, 'message', {
      get: () => {
        reads++;
        return 'HTTP-Code: 409';
      },
    });
    const p = await startPool({ impl: () => Promise.reject(err), logLevel: 'info' });
    p.queue.add(a);
    await settled(p, 1);
    const [line] = p.logs.errors();
    expect(line).toMatchObject({ error: '409 Conflict: the object has been modified', status: 409, reason: 'Conflict' });
    expect(p.pool.activity().recentFailures()[0]).toMatchObject({
      error: '409 Conflict: the object has been modified',
      reason: 'Conflict',
    });
    // summarizeError reads the message once; a second summary would read it again.
    expect(reads).toBe(1);
  });
});

describe('WorkerPool: a pass that cannot begin', () => {
  class FailingBegin extends FakeWatchCoordinator {
    failures = 1;
    override beginPass(...args: Parameters<FakeWatchCoordinator['beginPass']>): FakeInstancePass {
      if (this.failures-- > 0) throw new Error('beginPass broke');
      return super.beginPass(...args);
    }
  }

  it('retries the item with backoff, keeping its failure count, instead of dropping it, and runs the handler on the retry', async () => {
    const coordinator = new FailingBegin();
    const p = await startPool({ coordinator });
    p.queue.add(a);
    await settled(p, 1);
    expect(p.handler.count()).toBe(0);
    expect(p.observer.outcomes()).toEqual(['error']);
    expect(ops(p, 'addRateLimited', 'done')).toEqual([`addRateLimited:${MIN_RETRY_MS}`, 'done']);
    expect(p.pool.activity().recentFailures()[0]).toMatchObject({ item: a, error: 'Error: beginPass broke', failures: 1 });
    expect(withMessage(p, 'retrying with backoff')).toHaveLength(1);

    await p.clock.advanceAsync(MIN_RETRY_MS);
    await settled(p, 2);
    expect(p.handler.count()).toBe(1);
    expect(p.observer.outcomes()).toEqual(['error', 'success']);
    expect(p.queue.numRequeues(a)).toBe(0);
    expect(p.pool.activity().recentFailures()).toEqual([]);
  });
});
