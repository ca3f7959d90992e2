import { afterEach, describe, expect, it } from '@jest/globals';
import type { Config } from '../config.js';
import { PassCancelledError } from './PassCancelledError.js';
import { workItemKey } from './workItemKey.js';
import { DynamicController } from './DynamicController.js';
import type { WatchEvent } from '../events.js';
import type { GroupVersionResource, NamespacedName, ObjectIdentifiers } from '../gvr.js';
import type { Handler } from '../handler.js';
import {
  FakeClock,
  FakeInformerSource,
  FakeLeadership,
  FakeWatchCoordinator,
  FakeWatchManager,
  FakeWorkQueue,
  fakeObject,
  LogRecorder,
  ObserverRecorder,
  waitFor,
  type FakeInformer,
} from '../testing/index.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const a: NamespacedName = { namespace: 'ns', name: 'a' };
const itemA: ObjectIdentifiers = { gvr: webapps, ...a };
const MIN_RETRY_MS = 100;

interface Rig {
  readonly controller: DynamicController;
  readonly clock: FakeClock;
  readonly logs: LogRecorder;
  readonly observer: ObserverRecorder;
  readonly abort: AbortController;
  readonly running: Promise<void>;
  queue(): FakeWorkQueue<ObjectIdentifiers>;
  watchManager(): FakeWatchManager;
}

const rigs: Rig[] = [];

afterEach(async () => {
  for (const rig of rigs.splice(0)) {
    rig.abort.abort();
    await rig.running.catch(() => undefined);
  }
});

/** A started controller over doubles only (fake queue and clock, fake watch manager). */
function started(config: Partial<Config> = {}, leadership?: FakeLeadership): Rig {
  const clock = new FakeClock();
  const logs = new LogRecorder('debug');
  const observer = new ObserverRecorder();
  const queues: FakeWorkQueue<unknown>[] = [];
  const makeQueue = FakeWorkQueue.factory(clock, queues);
  const managers: FakeWatchManager[] = [];
  const controller = DynamicController.create({
    config: { workers: 4, resyncPeriodMs: 0, minRetryDelayMs: MIN_RETRY_MS, maxRetryDelayMs: 1_000, ...config },
    logger: logs.logger,
    clock,
    observer,
    informerSource: new FakeInformerSource(),
    workQueueFactory: makeQueue,
    watchManagerFactory: (deps) => {
      const wm = new FakeWatchManager({ onEvent: deps.onEvent });
      managers.push(wm);
      return wm;
    },
    watchCoordinatorFactory: (deps) => new FakeWatchCoordinator(deps),
    ...(leadership === undefined ? {} : { leadership }),
  });
  const abort = new AbortController();
  const rig: Rig = {
    controller,
    clock,
    logs,
    observer,
    abort,
    running: controller.start(abort.signal),
    queue: () => queues[0] as FakeWorkQueue<ObjectIdentifiers>,
    watchManager: () => managers[0]!,
  };
  rigs.push(rig);
  return rig;
}

function event(type: WatchEvent['type'], who: NamespacedName): WatchEvent {
  return { type, gvr: webapps, namespace: who.namespace, name: who.name, labels: {} };
}

/** An instance appearing in the cluster: cached by the parent informer, then its add event. */
function addInstance(rig: Rig, who: NamespacedName): void {
  (rig.watchManager().getInformer(webapps) as FakeInformer).add(fakeObject({ ...who, generation: 1 }));
  rig.watchManager().emit(event('add', who));
}

/** A handler that waits for its `ctx.signal` and rejects with its reason; counts its passes in `started`. */
function untilCutOff(passes: { started: number }): Handler {
  return (_req, ctx) => {
    passes.started++;
    return new Promise<void>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }));
  };
}

async function idle(rig: Rig, reconciles: number): Promise<void> {
  await waitFor(() => rig.observer.reconciles.length >= reconciles && rig.queue().len() === 0 && rig.queue().processing().length === 0, {
    message: `${reconciles} reconciles and an idle queue`,
  });
}

describe('DynamicController: passes cut off by normal operation', () => {
  it('cuts off 25 passes by deregistering, and a fresh registration still retries its first failure', async () => {
    const rig = started({ queueMaxRetries: 20 });
    const passes = { started: 0 };
    for (let round = 1; round <= 25; round++) {
      await rig.controller.register(webapps, untilCutOff(passes));
      addInstance(rig, a);
      await waitFor(() => passes.started === round);
      await rig.controller.deregister(webapps);
      await idle(rig, round);
    }
    expect(new Set(rig.observer.outcomes())).toEqual(new Set(['cancelled']));
    expect(rig.observer.handlerErrors).toEqual([]);
    expect(rig.queue().calls.filter((c) => c.op === 'addRateLimited')).toEqual([]);
    expect(rig.logs.records.filter((r) => r.level >= 40)).toEqual([]);
    expect(rig.logs.find('cut off (its parent GVR was deregistered')).toHaveLength(25);

    let calls = 0;
    await rig.controller.register(webapps, () => (++calls === 1 ? Promise.reject(new Error('transient')) : Promise.resolve()));
    addInstance(rig, a);
    await idle(rig, 26);
    expect(rig.observer.outcomes().at(-1)).toBe('error');
    await rig.clock.advanceAsync(MIN_RETRY_MS);
    await idle(rig, 27);
    expect(calls).toBe(2);
    expect(rig.observer.outcomes().at(-1)).toBe('success');
    expect(rig.logs.find('dropping')).toEqual([]);
  });

  it('forgets the failure count and backoff of its items at deregister, so a new registration starts from zero', async () => {
    const rig = started({ queueMaxRetries: 3 });
    await rig.controller.register(webapps, () => Promise.reject(new Error('boom')));
    addInstance(rig, a);
    for (let failures = 1; failures <= 3; failures++) {
      await idle(rig, failures);
      expect(rig.queue().numRequeues(itemA)).toBe(failures);
      if (failures < 3) await rig.clock.advanceAsync(MIN_RETRY_MS * 2 ** (failures - 1));
    }
    // Deregistered with a retry pending and three failures counted: one more would have dropped the item.
    await rig.controller.deregister(webapps);
    expect(rig.queue().numRequeues(itemA)).toBe(0);
    expect(rig.controller.status().queue.recentFailures).toEqual([]);

    let calls = 0;
    await rig.controller.register(webapps, () => (++calls === 1 ? Promise.reject(new Error('transient')) : Promise.resolve()));
    addInstance(rig, a);
    await waitFor(() => calls === 1);
    await idle(rig, 4);
    expect(rig.queue().numRequeues(itemA)).toBe(1);
    await rig.clock.advanceAsync(MIN_RETRY_MS * 4);
    await waitFor(() => calls === 2);
    expect(rig.logs.find('dropping')).toEqual([]);
  });

  it('cuts off the pass of an instance deleted while it runs, and runs it once more to see it gone', async () => {
    const rig = started();
    const passes = { started: 0 };
    await rig.controller.register(webapps, untilCutOff(passes));
    addInstance(rig, a);
    await waitFor(() => passes.started === 1);
    (rig.watchManager().getInformer(webapps) as FakeInformer).delete(a);
    rig.watchManager().emit(event('delete', a));
    await waitFor(() => passes.started === 2);
    expect(rig.observer.outcomes()).toEqual(['cancelled']);
    expect(rig.logs.find('cut off (the instance was deleted)')).toHaveLength(1);
    expect(rig.logs.find('cut off')[0]).toMatchObject({ level: 30, reason: 'deleted', item: workItemKey(itemA) });
    expect(rig.observer.handlerErrors).toEqual([]);
  });

  it('cuts off a pass when the leadership term ends: one info line, not retried, not a handler error', async () => {
    const leadership = new FakeLeadership('replica-a');
    const rig = started({}, leadership);
    await leadership.whenRunning();
    const passes = { started: 0 };
    await rig.controller.register(webapps, untilCutOff(passes));
    addInstance(rig, a);
    void leadership.elect({ isValid: () => true, description: 'lease of replica-a' });
    await waitFor(() => passes.started === 1);
    await leadership.depose(new Error('lease lost'));
    expect(rig.observer.outcomes()).toEqual(['cancelled']);
    expect(rig.observer.handlerErrors).toEqual([]);
    expect(rig.queue().calls.filter((c) => c.op === 'addRateLimited')).toEqual([]);
    expect(rig.logs.find('cut off (the controller is stopping or its leadership term ended)')[0]).toMatchObject({
      level: 30,
      reason: 'stopping',
      error: 'Error: lease lost',
    });
    expect(rig.logs.records.filter((r) => r.level >= 40)).toEqual([]);
  });

  it('takes a PassCancelledError from a handler (a lost shard range) as a cut-off pass: info, not retried, not a handler error', async () => {
    const rig = started();
    await rig.controller.register(webapps, () =>
      Promise.reject(new Error('wrapped', { cause: new PassCancelledError('range-lost', 'the shard lost the range of this instance') })),
    );
    addInstance(rig, a);
    await idle(rig, 1);
    expect(rig.observer.outcomes()).toEqual(['cancelled']);
    expect(rig.observer.handlerErrors).toEqual([]);
    expect(rig.queue().calls.filter((c) => c.op === 'addRateLimited')).toEqual([]);
    const [line, ...more] = rig.logs.find('cut off');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 30, reason: 'range-lost' });
    expect(line!['err']).toBeUndefined();
  });

  it('keeps a handler error an error, with its stack, retried with backoff', async () => {
    const rig = started();
    await rig.controller.register(webapps, () => Promise.reject(new TypeError('x is undefined')));
    addInstance(rig, a);
    await idle(rig, 1);
    expect(rig.observer.outcomes()).toEqual(['error']);
    expect(rig.observer.handlerErrors).toHaveLength(1);
    const [line] = rig.logs.errors();
    expect(line!['err']).toMatchObject({ stack: expect.stringContaining('TypeError') });
  });

  it('summarizes handler failures on one network error across 20 instances: one line, then one count per interval, no stacks', async () => {
    const rig = started({ queueMaxRetries: 20 });
    const reset = (): Error => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    let outage = true;
    await rig.controller.register(webapps, () => (outage ? Promise.reject(reset()) : Promise.resolve()));
    const names = Array.from({ length: 20 }, (_, i) => ({ namespace: 'ns', name: `app-${i}` }));
    for (const who of names) addInstance(rig, who);
    await idle(rig, 20);
    // A 3 s outage: the items keep failing with backoff (100 ms doubling) until the server is back.
    for (let elapsed = 0; elapsed < 3_000; elapsed += 100) {
      await rig.clock.advanceAsync(100);
      await waitFor(() => rig.queue().len() === 0 && rig.queue().processing().length === 0);
    }
    outage = false;
    await rig.clock.advanceAsync(10_000);
    await waitFor(() => rig.observer.outcomes().filter((o) => o === 'success').length === 20);
    await rig.clock.advanceAsync(10_000);
    const failures = rig.observer.outcomes().filter((o) => o === 'error').length;
    expect(failures).toBeGreaterThanOrEqual(80);
    const lines = rig.logs.records.filter((r) => r.level >= 40);
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines[0]).toMatchObject({ level: 40, cause: 'ECONNRESET', msg: expect.stringContaining('network error (ECONNRESET)') });
    for (const line of lines) expect(line['err']).toBeUndefined();
    const counted = lines.slice(1).reduce((sum, line) => sum + (line['repeats'] as number), 0);
    expect(1 + counted).toBe(failures);
  });
});
