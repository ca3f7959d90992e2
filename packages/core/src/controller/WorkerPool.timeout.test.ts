import { afterEach, describe, expect, it } from '@jest/globals';
import type { InstancePass, QueueGetResult, RateLimitingQueue, WatchCoordinator } from '../contracts/index.js';
import { gvrKey, type GroupVersionResource, type ObjectIdentifiers } from '../gvr.js';
import type { Handler, ReconcileContext } from '../handler.js';
import { FakeClock, FakeWatchManager, fakeObject, LogRecorder, NoopInstanceWatcher, waitFor } from '../testing/index.js';
import { ReconcileTimeoutError } from './ReconcileTimeoutError.js';
import { WorkerPool, type ParentHandler } from './WorkerPool.js';
import { workItemKey } from './workItemKey.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const a: ObjectIdentifiers = { gvr: webapps, namespace: 'ns', name: 'a' };
const LIMIT_MS = 1_000;

/** Just enough of a rate-limited queue: items handed out in order, every call recorded. */
class RecordingQueue implements RateLimitingQueue<ObjectIdentifiers> {
  readonly calls: string[] = [];
  private readonly items: ObjectIdentifiers[] = [];
  private waiting: ((r: QueueGetResult<ObjectIdentifiers>) => void) | undefined;
  private closed = false;
  private readonly requeues = new Map<string, number>();

  add(item: ObjectIdentifiers): void {
    this.calls.push(`add ${item.name}`);
    this.push(item);
  }
  addAfter(item: ObjectIdentifiers, delayMs: number): void {
    this.calls.push(`addAfter ${item.name} ${delayMs}`);
  }
  addRateLimited(item: ObjectIdentifiers): void {
    const key = workItemKey(item);
    this.requeues.set(key, (this.requeues.get(key) ?? 0) + 1);
    this.calls.push(`addRateLimited ${item.name}`);
    this.push(item);
  }
  forget(item: ObjectIdentifiers): void {
    this.requeues.delete(workItemKey(item));
    this.calls.push(`forget ${item.name}`);
  }
  numRequeues(item: ObjectIdentifiers): number {
    return this.requeues.get(workItemKey(item)) ?? 0;
  }
  len(): number {
    return this.items.length;
  }
  get(): Promise<QueueGetResult<ObjectIdentifiers>> {
    const next = this.items.shift();
    if (next !== undefined) return Promise.resolve({ item: next, shutdown: false });
    if (this.closed) return Promise.resolve({ shutdown: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }
  done(item: ObjectIdentifiers): void {
    this.calls.push(`done ${item.name}`);
  }
  shutdown(): void {
    this.closed = true;
    this.waiting?.({ shutdown: true });
  }
  shutdownWithDrain(): Promise<void> {
    this.shutdown();
    return Promise.resolve();
  }
  shuttingDown(): boolean {
    return this.closed;
  }
  private push(item: ObjectIdentifiers): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting !== undefined) waiting({ item, shutdown: false });
    else this.items.push(item);
  }
}

/** A pass that records how it ended. */
class RecordingPass extends NoopInstanceWatcher implements InstancePass {
  constructor(private readonly ends: boolean[]) {
    super();
  }
  override end(commit: boolean): void {
    this.ends.push(commit);
  }
}

interface Pool {
  readonly queue: RecordingQueue;
  readonly clock: FakeClock;
  readonly logs: LogRecorder;
  readonly shutdown: AbortController;
  /** How each pass was settled: true = committed. */
  readonly ends: boolean[];
  /** The `ctx` of every pass, in order. */
  readonly contexts: ReconcileContext[];
  readonly running: Promise<void>;
}

const pools: Pool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) {
    p.shutdown.abort();
    p.queue.shutdown();
    await p.running;
  }
});

async function startPool(handler: Handler, reconcileTimeoutMs: number | undefined): Promise<Pool> {
  const clock = new FakeClock();
  const queue = new RecordingQueue();
  const logs = new LogRecorder();
  const shutdown = new AbortController();
  const ends: boolean[] = [];
  const contexts: ReconcileContext[] = [];
  const watchManager = new FakeWatchManager();
  await watchManager.ensureWatch(webapps, 'parent');
  (watchManager.getInformer(webapps) as unknown as { add(o: unknown): void }).add(fakeObject({ name: 'a', namespace: 'ns' }));
  const coordinator: Partial<WatchCoordinator> = {
    beginPass: () => new RecordingPass(ends),
    removeInstance: () => undefined,
  };
  const parents = new Map<string, ParentHandler>([
    [
      gvrKey(webapps),
      {
        gvr: webapps,
        handler: (req, ctx) => {
          contexts.push(ctx);
          return handler(req, ctx);
        },
      },
    ],
  ]);
  const pool = new WorkerPool({
    queue,
    queueMaxRetries: 5,
    parents,
    watchManager,
    watchCoordinator: coordinator as WatchCoordinator,
    signal: shutdown.signal,
    ...(reconcileTimeoutMs === undefined ? {} : { reconcileTimeoutMs }),
    clock,
    observer: {},
    logger: logs.logger,
  });
  const p: Pool = { queue, clock, logs, shutdown, ends, contexts, running: pool.run(1) };
  pools.push(p);
  return p;
}

/** A handler that waits for its signal and rejects with the abort reason, as one passing ctx.signal to its requests does. */
const waitForAbort: Handler = (_req, ctx) =>
  new Promise<void>((_resolve, reject) => {
    if (ctx.signal.aborted) reject(ctx.signal.reason);
    ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
  });

describe('WorkerPool reconcileTimeoutMs', () => {
  it('aborts ctx.signal at the limit with a ReconcileTimeoutError and retries the pass with backoff', async () => {
    const p = await startPool(waitForAbort, LIMIT_MS);
    p.queue.add(a);
    await waitFor(() => p.contexts.length === 1);
    const first = p.contexts[0]!;
    await p.clock.advanceAsync(LIMIT_MS - 1);
    expect(first.signal.aborted).toBe(false);
    await p.clock.advanceAsync(1);
    expect(first.signal.aborted).toBe(true);
    expect(first.signal.reason).toBeInstanceOf(ReconcileTimeoutError);
    expect(first.signal.reason).toMatchObject({ gvr: webapps, instance: { namespace: 'ns', name: 'a' }, timeoutMs: LIMIT_MS });
    // The retry runs the handler again, with a fresh signal.
    await waitFor(() => p.contexts.length === 2);
    expect(p.contexts[1]!.signal.aborted).toBe(false);
    expect(p.queue.calls.slice(0, 3)).toEqual(['add a', 'addRateLimited a', 'done a']);
    expect(p.ends[0]).toBe(false);
  });

  it('logs one error line naming the instance and the limit', async () => {
    const p = await startPool(waitForAbort, LIMIT_MS);
    p.queue.add(a);
    await waitFor(() => p.contexts.length === 1);
    await p.clock.advanceAsync(LIMIT_MS);
    await waitFor(() => p.contexts.length === 2);
    const errors = p.logs.errors();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toContain('retrying with backoff');
    expect(errors[0]!.msg).toContain(`${gvrKey(webapps)} ns/a exceeded reconcileTimeoutMs=${LIMIT_MS}`);
  });

  it('fails a timed-out pass even when the handler swallows the abort and resolves', async () => {
    const p = await startPool(async (req, ctx) => {
      await waitForAbort(req, ctx).catch(() => undefined);
    }, LIMIT_MS);
    p.queue.add(a);
    await waitFor(() => p.contexts.length === 1);
    await p.clock.advanceAsync(LIMIT_MS);
    await waitFor(() => p.queue.calls.includes('addRateLimited a'));
    expect(p.queue.calls).not.toContain('forget a');
    expect(p.ends[0]).toBe(false);
  });

  it('leaves a pass that finishes in time alone and clears its timer', async () => {
    const p = await startPool(() => Promise.resolve(), LIMIT_MS);
    p.queue.add(a);
    await waitFor(() => p.queue.calls.includes('done a'));
    expect(p.queue.calls).toEqual(['add a', 'forget a', 'done a']);
    expect(p.ends).toEqual([true]);
    expect(p.clock.pendingTimers()).toBe(0);
    await p.clock.advanceAsync(LIMIT_MS);
    expect(p.contexts[0]!.signal.aborted).toBe(false);
  });

  it('aborts ctx.signal at shutdown with the shutdown reason, not a timeout', async () => {
    const p = await startPool(waitForAbort, LIMIT_MS);
    p.queue.add(a);
    await waitFor(() => p.contexts.length === 1);
    const reason = new Error('stopping');
    p.shutdown.abort(reason);
    expect(p.contexts[0]!.signal.aborted).toBe(true);
    expect(p.contexts[0]!.signal.reason).toBe(reason);
    await waitFor(() => p.queue.calls.includes('done a'));
    expect(p.queue.calls).not.toContain('addRateLimited a');
    expect(p.logs.find('cut off (the controller is stopping')).toHaveLength(1);
  });

  it('sets no limit with reconcileTimeoutMs 0: ctx.signal aborts at shutdown only', async () => {
    const p = await startPool(waitForAbort, 0);
    p.queue.add(a);
    await waitFor(() => p.contexts.length === 1);
    expect(p.clock.pendingTimers()).toBe(0);
    expect(p.contexts[0]!.signal.aborted).toBe(false);
    const reason = new Error('stopping');
    p.shutdown.abort(reason);
    expect(p.contexts[0]!.signal.reason).toBe(reason);
  });
});
