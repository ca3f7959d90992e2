import { afterEach, describe, expect, it } from '@jest/globals';
import type { Config } from '../config.js';
import type { Leadership } from '../contracts/index.js';
import type { ControllerObserver } from './ControllerObserver.js';
import { ShutdownTimeoutError } from './ShutdownTimeoutError.js';
import { FencingRequiredError } from '../FencingRequiredError.js';
import { DynamicController } from './DynamicController.js';
import type { GroupVersionResource, NamespacedName, ObjectIdentifiers } from '../gvr.js';
import {
  Deferred,
  FakeClock,
  FakeInformerSource,
  FakeLeadership,
  FakeWatchCoordinator,
  FakeWatchManager,
  FakeWorkQueue,
  fakeObject,
  flushMicrotasks,
  HandlerRecorder,
  LogRecorder,
  waitFor,
  type FakeInformer,
} from '../testing/index.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const a: NamespacedName = { namespace: 'ns', name: 'a' };
const b: NamespacedName = { namespace: 'ns', name: 'b' };
const c: NamespacedName = { namespace: 'ns', name: 'c' };

const TEST_CONFIG: Partial<Config> = {
  workers: 2,
  resyncPeriodMs: 0,
  queueMaxRetries: 3,
  minRetryDelayMs: 100,
  maxRetryDelayMs: 1_000,
  queueShutdownTimeoutMs: 5_000,
};

interface Rig {
  readonly controller: DynamicController;
  readonly clock: FakeClock;
  readonly logs: LogRecorder;
  readonly leadership: Leadership;
  readonly changes: { identity: string; leading: boolean }[];
  readonly abort: AbortController;
  readonly running: Promise<void>;
  readonly queue: () => FakeWorkQueue<ObjectIdentifiers>;
  readonly watchManager: () => FakeWatchManager;
}

const rigs: Rig[] = [];
const gates: Deferred[] = [];

afterEach(async () => {
  for (const g of gates.splice(0)) if (!g.settled()) g.resolve();
  for (const rig of rigs.splice(0)) {
    rig.abort.abort();
    await rig.running.catch(() => undefined);
  }
});

function gate(): Deferred {
  const d = new Deferred();
  gates.push(d);
  return d;
}

/** A started controller with `leadership` (a FakeLeadership by default), built from doubles only. */
function started(leadership: Leadership = new FakeLeadership('replica-a'), config: Partial<Config> = {}): Rig {
  const clock = new FakeClock();
  const logs = new LogRecorder('debug');
  const queues: FakeWorkQueue<unknown>[] = [];
  const watchManagers: FakeWatchManager[] = [];
  const changes: { identity: string; leading: boolean }[] = [];
  const observer: ControllerObserver = { onLeadershipChange: (identity, leading) => changes.push({ identity, leading }) };
  const controller = DynamicController.create({
    config: { ...TEST_CONFIG, ...config },
    logger: logs.logger,
    clock,
    observer,
    leadership,
    informerSource: new FakeInformerSource(),
    workQueueFactory: FakeWorkQueue.factory(clock, queues),
    watchManagerFactory: (deps) => {
      const wm = new FakeWatchManager({ onEvent: deps.onEvent });
      watchManagers.push(wm);
      return wm;
    },
    watchCoordinatorFactory: (deps) => new FakeWatchCoordinator(deps),
  });
  const abort = new AbortController();
  const running = controller.start(abort.signal);
  running.catch(() => undefined);
  const rig: Rig = {
    controller,
    clock,
    logs,
    leadership,
    changes,
    abort,
    running,
    queue: () => queues[0] as FakeWorkQueue<ObjectIdentifiers>,
    watchManager: () => watchManagers[0]!,
  };
  rigs.push(rig);
  return rig;
}

function fake(rig: Rig): FakeLeadership {
  return rig.leadership as FakeLeadership;
}

function informerOf(rig: Rig): FakeInformer {
  return rig.watchManager().getInformer(webapps) as FakeInformer;
}

function addInstance(rig: Rig, who: NamespacedName): void {
  informerOf(rig).add(fakeObject({ ...who, generation: 1 }));
  rig.watchManager().emit({ type: 'add', gvr: webapps, namespace: who.namespace, name: who.name, labels: {}, generation: 1 });
}

/** A standby with webapps registered and instances a and b cached and queued. */
async function standbyWithInstances(handler: HandlerRecorder, config: Partial<Config> = {}): Promise<Rig> {
  const rig = started(new FakeLeadership('replica-a'), config);
  await fake(rig).whenRunning();
  await rig.controller.register(webapps, handler.handler);
  addInstance(rig, a);
  addInstance(rig, b);
  return rig;
}

describe('DynamicController with a Leadership: warm standby', () => {
  it('on standby registers and syncs its parents and queues their instances, but runs no handler', async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler);
    await flushMicrotasks();
    expect(rig.controller.isStarted()).toBe(true);
    expect(rig.controller.isLeading()).toBe(false);
    expect(rig.controller.hasSynced(webapps)).toBe(true);
    expect(rig.queue().len()).toBe(2);
    expect(handler.count()).toBe(0);
    expect(rig.logs.find('dynamic controller started on standby; its workers run while it leads')[0]).toMatchObject({
      identity: 'replica-a',
    });
  });

  it('runs the workers once elected: every queued instance is reconciled, and the observer hears of it', async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler);
    void fake(rig).elect();
    await waitFor(() => handler.count() === 2 && rig.queue().processing().length === 0);
    expect(handler.keys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(rig.controller.isLeading()).toBe(true);
    expect(rig.changes).toEqual([{ identity: 'replica-a', leading: true }]);
    expect(rig.logs.find('leading: workers started')[0]).toMatchObject({ identity: 'replica-a', workers: 2 });
  });

  it("stops reporting itself leading once the term's validity ends, before the term is deposed (a replica woken past its lease)", async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler);
    let valid = true;
    void fake(rig).elect({ isValid: () => valid, description: 'lease of replica-a' });
    await waitFor(() => handler.count() === 2);
    expect(rig.controller.isLeading()).toBe(true);
    valid = false;
    expect(rig.controller.isLeading()).toBe(false);
    expect(rig.controller.status().leading).toBe(false);
    expect(fake(rig).isLeading()).toBe(true);
  });

  it('on losing the lease stops taking items, aborts the running handler and resolves lead() only after it returned', async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler, { workers: 1 });
    const held = gate();
    handler.impl = () => held.promise;
    void fake(rig).elect();
    await waitFor(() => handler.count() === 1);
    const first = handler.calls[0]!;
    let deposed = false;
    const depose = fake(rig)
      .depose(new Error('lease lost'))
      .then(() => (deposed = true));
    expect(first.ctx.signal.aborted).toBe(true);
    expect(first.ctx.signal.reason).toEqual(new Error('lease lost'));
    await flushMicrotasks();
    expect(deposed).toBe(false);
    expect(rig.controller.isLeading()).toBe(true);
    held.resolve();
    await depose;
    expect(rig.controller.isLeading()).toBe(false);
    expect(rig.changes.map((x) => x.leading)).toEqual([true, false]);
    // The second instance was never taken by the deposed term, and new events still reach the queue.
    addInstance(rig, c);
    await flushMicrotasks();
    expect(handler.count()).toBe(1);
    expect(
      rig
        .queue()
        .queued()
        .map((i) => i.name)
        .sort(),
    ).toEqual(['b', 'c']);
    expect(rig.watchManager().getInformer(webapps)).toBeDefined();
    expect(rig.logs.find('stopped leading: workers stopped and their handlers returned; informers keep syncing')[0]).toMatchObject({
      reason: 'lease lost',
    });
  });

  it('reconciles every cached instance again at the start of each term', async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler);
    void fake(rig).elect();
    await waitFor(() => handler.count() === 2 && rig.queue().processing().length === 0);
    await fake(rig).depose();
    handler.clear();
    void fake(rig).elect();
    await waitFor(() => handler.count() === 2 && rig.queue().processing().length === 0);
    expect(handler.keys().sort()).toEqual(['ns/a', 'ns/b']);
    // Enqueued as a takeover, which a priority queue serves after live changes.
    const takeovers = rig.queue().calls.filter((c) => c.op === 'add' && c.source === 'takeover');
    expect(takeovers.map((c) => c.item.name).sort()).toEqual(['a', 'a', 'b', 'b']);
  });

  it('hands a get() still waiting when a term ends over to the next term, so an item added later runs once', async () => {
    const handler = new HandlerRecorder();
    const rig = started(new FakeLeadership('replica-a'), { workers: 1 });
    await fake(rig).whenRunning();
    await rig.controller.register(webapps, handler.handler);
    void fake(rig).elect();
    await flushMicrotasks();
    await fake(rig).depose();
    void fake(rig).elect();
    await flushMicrotasks();
    addInstance(rig, a);
    await waitFor(() => handler.count() === 1 && rig.queue().processing().length === 0);
    await flushMicrotasks();
    expect(handler.keys()).toEqual(['ns/a']);
    expect(rig.queue().len()).toBe(0);
  });

  it('on a graceful stop keeps the lease until the handlers returned, then hands it back', async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler, { workers: 1 });
    const held = gate();
    handler.impl = () => held.promise;
    void fake(rig).elect();
    await waitFor(() => handler.count() === 1);
    rig.abort.abort();
    await flushMicrotasks();
    expect(fake(rig).released).toBe(false);
    expect(fake(rig).terms[0]!.outcome).toBe('pending');
    held.resolve();
    await rig.running;
    expect(fake(rig).terms[0]!.outcome).toBe('resolved');
    expect(fake(rig).released).toBe(true);
    expect(handler.count()).toBe(1);
  });

  it('shuts down a standby that never led: parked and queued items are released and start resolves', async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler);
    rig.abort.abort();
    await rig.running;
    expect(handler.count()).toBe(0);
    expect(fake(rig).terms).toEqual([]);
    expect(fake(rig).released).toBe(true);
  });

  it('when shutdown times out, rejects the term so the lease is not handed back while a handler still runs', async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler, { workers: 1, queueShutdownTimeoutMs: 1_000 });
    const never = gate();
    handler.impl = () => never.promise;
    void fake(rig).elect();
    await waitFor(() => handler.count() === 1);
    rig.abort.abort();
    await flushMicrotasks();
    await rig.clock.advanceAsync(1_000);
    await expect(rig.running).rejects.toBeInstanceOf(ShutdownTimeoutError);
    await waitFor(() => fake(rig).terms[0]!.outcome === 'rejected');
    expect(fake(rig).terms[0]!.error).toBeInstanceOf(ShutdownTimeoutError);
    expect(fake(rig).released).toBe(false);
    expect(rig.logs.find('stopped leading with handlers still running (shutdown timed out)')).toHaveLength(1);
  });

  it('shuts down when the leadership ends on its own, and rejects start with its error', async () => {
    const failing: Leadership = { identity: 'replica-b', run: () => Promise.reject(new Error('lease API gone')) };
    const rig = started(failing);
    await expect(rig.running).rejects.toThrow('lease API gone');
    expect(rig.controller.isStarted()).toBe(false);
    expect(rig.logs.find('leadership ended before the controller was stopped; shutting down')[0]).toMatchObject({ identity: 'replica-b' });
  });
});

describe('DynamicController with a Leadership: fencing', () => {
  it('a term offered without a fence (a leadership written before fencing was required) stops the controller: start rejects with FencingRequiredError', async () => {
    const handler = new HandlerRecorder();
    const unfenced: Leadership = {
      identity: 'old-style',
      run: async (signal, lead) => {
        await lead(signal, undefined as never).catch(() => undefined);
      },
    };
    const rig = started(unfenced);
    await rig.controller.register(webapps, handler.handler).catch(() => undefined);
    await expect(rig.running).rejects.toThrow(FencingRequiredError);
    await expect(rig.running).rejects.toThrow(/leadership old-style needs the validity of the lease it acts under/);
    expect(handler.count()).toBe(0);
    expect(rig.logs.find('shutting down: leadership old-style needs')).toHaveLength(1);
  });

  it("a term fenced by 'none' runs, and the choice is logged once however many terms follow", async () => {
    const handler = new HandlerRecorder();
    const rig = await standbyWithInstances(handler);
    void fake(rig).elect('none');
    await waitFor(() => handler.count() === 2);
    await fake(rig).depose();
    void fake(rig).elect('none');
    await waitFor(() => rig.controller.isLeading());
    expect(rig.logs.find("fencing: 'none'")).toHaveLength(1);
  });
});
