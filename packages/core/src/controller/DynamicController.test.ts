import { afterEach, describe, expect, it } from '@jest/globals';
import type { Config } from '../config.js';
import type { WatchManagerDeps, WorkQueueOptions } from '../contracts/index.js';
import { ControllerStateError } from './ControllerStateError.js';
import { ParentSyncError } from './ParentSyncError.js';
import { ShutdownTimeoutError } from './ShutdownTimeoutError.js';
import { workItemKey } from './workItemKey.js';
import { DynamicController } from './DynamicController.js';
import type { WatchEvent } from '../events.js';
import { gvrKey, type GroupVersionResource, type NamespacedName, type ObjectIdentifiers } from '../gvr.js';
import { InvalidGroupVersionResourceError } from '../gvrValidation.js';
import type { Handler } from '../handler.js';
import { requeue } from '../requeue.js';
import {
  Deferred,
  FakeClock,
  FakeInformerSource,
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
} from '../testing/index.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const databases: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'databases' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const a: NamespacedName = { namespace: 'ns', name: 'a' };
const b: NamespacedName = { namespace: 'ns', name: 'b' };

const TEST_CONFIG: Partial<Config> = {
  workers: 1,
  resyncPeriodMs: 0,
  queueMaxRetries: 3,
  minRetryDelayMs: 100,
  maxRetryDelayMs: 1_000,
  queueShutdownTimeoutMs: 5_000,
};

/** A controller built from doubles only, and the doubles it was given. */
interface Rig {
  readonly controller: DynamicController;
  readonly clock: FakeClock;
  readonly source: FakeInformerSource;
  readonly logs: LogRecorder;
  readonly observer: ObserverRecorder;
  readonly abort: AbortController;
  /** What the controller gave its factories. */
  readonly queueOptions: WorkQueueOptions<unknown>[];
  readonly watchManagerDeps: WatchManagerDeps[];
  queue(): FakeWorkQueue<ObjectIdentifiers>;
  watchManager(): FakeWatchManager;
  coordinator(): FakeWatchCoordinator;
  /** The promise of `controller.start(abort.signal)`, once started. */
  running?: Promise<void>;
}

const rigs: Rig[] = [];
const gates: Deferred[] = [];

afterEach(async () => {
  for (const g of gates.splice(0)) g.resolve();
  for (const rig of rigs.splice(0)) {
    rig.abort.abort();
    await rig.running?.catch(() => undefined);
  }
});

function gate(): Deferred {
  const d = new Deferred();
  gates.push(d);
  return d;
}

/** `manualSync`: every sync of the watch manager waits for `resolveSync`/`rejectSync`. */
function build(config: Partial<Config> = {}, options: { manualSync?: boolean } = {}): Rig {
  const clock = new FakeClock();
  const source = new FakeInformerSource();
  const logs = new LogRecorder('debug');
  const observer = new ObserverRecorder();
  const queues: FakeWorkQueue<unknown>[] = [];
  const queueOptions: WorkQueueOptions<unknown>[] = [];
  const watchManagerDeps: WatchManagerDeps[] = [];
  const watchManagers: FakeWatchManager[] = [];
  const coordinators: FakeWatchCoordinator[] = [];
  const makeQueue = FakeWorkQueue.factory(clock, queues);
  const controller = DynamicController.create({
    config: { ...TEST_CONFIG, ...config },
    logger: logs.logger,
    clock,
    observer,
    informerSource: source,
    workQueueFactory: (options) => {
      queueOptions.push(options as WorkQueueOptions<unknown>);
      return makeQueue(options);
    },
    watchManagerFactory: (deps) => {
      watchManagerDeps.push(deps);
      const wm = new FakeWatchManager({ onEvent: deps.onEvent, sync: options.manualSync === true ? 'manual' : 'auto' });
      watchManagers.push(wm);
      return wm;
    },
    watchCoordinatorFactory: (deps) => {
      const coordinator = new FakeWatchCoordinator(deps);
      coordinators.push(coordinator);
      return coordinator;
    },
  });
  const rig: Rig = {
    controller,
    clock,
    source,
    logs,
    observer,
    abort: new AbortController(),
    queueOptions,
    watchManagerDeps,
    queue: () => queues[0] as FakeWorkQueue<ObjectIdentifiers>,
    watchManager: () => watchManagers[0]!,
    coordinator: () => coordinators[0]!,
  };
  rigs.push(rig);
  return rig;
}

function start(rig: Rig): Rig {
  rig.running = rig.controller.start(rig.abort.signal);
  return rig;
}

/** A running controller with `handler` registered for webapps. */
async function running(handler: Handler, config: Partial<Config> = {}): Promise<Rig> {
  const rig = start(build(config));
  await rig.controller.register(webapps, handler);
  return rig;
}

/** The informer the fake watch manager runs for `gvr`: its cache is what the controller takes to exist. */
function informerOf(rig: Rig, gvr: GroupVersionResource = webapps): FakeInformer {
  const informer = rig.watchManager().getInformer(gvr);
  if (informer === undefined) throw new Error(`nothing watches ${gvrKey(gvr)}`);
  return informer as FakeInformer;
}

function event(type: WatchEvent['type'], who: NamespacedName, extra: Partial<WatchEvent> = {}, gvr = webapps): WatchEvent {
  return { type, gvr, namespace: who.namespace, name: who.name, labels: {}, ...extra };
}

/** An instance appearing in the cluster: cached by the parent informer, then its add event. */
function addInstance(rig: Rig, who: NamespacedName, generation = 1): void {
  informerOf(rig).add(fakeObject({ ...who, generation }));
  rig.watchManager().emit(event('add', who, { generation }));
}

/** An instance deleted from the cluster: gone from the cache, then its delete event. */
function deleteInstance(rig: Rig, who: NamespacedName): void {
  informerOf(rig).delete(who);
  rig.watchManager().emit(event('delete', who));
}

/** Waits until `count` items were reconciled (any outcome) and nothing is queued or being handled. */
async function settled(rig: Rig, count: number): Promise<void> {
  await waitFor(() => rig.observer.reconciles.length >= count && rig.queue().len() === 0 && rig.queue().processing().length === 0, {
    message: `${count} reconciles and an idle queue`,
  });
}

/** `namespace/name` of the items added to the queue so far, in order. */
function enqueued(rig: Rig): string[] {
  return rig
    .queue()
    .calls.filter((c) => c.op === 'add')
    .map((c) => `${c.item.namespace}/${c.item.name}`);
}

describe('DynamicController: building', () => {
  it('builds its queue, watch manager and watch coordinator from the config and its informer source', () => {
    const rig = build({ minRetryDelayMs: 150, maxRetryDelayMs: 900, rateLimit: 4, burstLimit: 8, resyncPeriodMs: 60_000 });
    expect(rig.queueOptions).toHaveLength(1);
    expect(rig.queueOptions[0]).toMatchObject({
      name: 'dynamic-controller-queue',
      key: workItemKey,
      limits: { minRetryDelayMs: 150, maxRetryDelayMs: 900, qps: 4, burst: 8 },
    });
    expect(rig.watchManagerDeps).toHaveLength(1);
    expect(rig.watchManagerDeps[0]!.source).toBe(rig.source);
    expect(rig.watchManagerDeps[0]!.resyncPeriodMs).toBe(60_000);
    expect(rig.controller.watchCoordinator()).toBe(rig.coordinator());
    expect(rig.controller.isStarted()).toBe(false);
  });
});

describe('DynamicController: start and state errors', () => {
  it('refuses to register before start, without watching anything', async () => {
    const rig = build();
    const err = await rig.controller.register(webapps, () => Promise.resolve()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControllerStateError);
    expect((err as ControllerStateError).state).toBe('idle');
    expect((err as Error).message).toContain('call start() first');
    expect(rig.watchManager().calls).toEqual([]);
    expect(rig.controller.registeredGVRs()).toEqual([]);
  });

  it('refuses a second start while running, and any start after it stopped', async () => {
    const rig = start(build());
    expect(rig.controller.isStarted()).toBe(true);
    await expect(rig.controller.start(new AbortController().signal)).rejects.toMatchObject({
      name: 'ControllerStateError',
      state: 'running',
    });
    rig.abort.abort();
    await rig.running;
    expect(rig.controller.isStarted()).toBe(false);
    const err = await rig.controller.start(new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControllerStateError);
    expect((err as ControllerStateError).state).toBe('stopped');
    expect((err as Error).message).toContain('create a new one');
  });

  it('refuses a start signal that is not an AbortSignal, and stays startable', async () => {
    const rig = build();
    await expect(rig.controller.start({} as AbortSignal)).rejects.toThrow(TypeError);
    expect(rig.controller.isStarted()).toBe(false);
    start(rig);
    expect(rig.controller.isStarted()).toBe(true);
  });

  it('refuses to register once shutdown began', async () => {
    const held = gate();
    const rig = await running(() => held.promise);
    addInstance(rig, a);
    await waitFor(() => rig.observer.reconciles.length === 0 && rig.queue().processing().length === 1);
    rig.abort.abort();
    await flushMicrotasks();
    await expect(rig.controller.register(databases, () => Promise.resolve())).rejects.toMatchObject({ state: 'stopping' });
    held.resolve();
    await rig.running;
    await expect(rig.controller.register(databases, () => Promise.resolve())).rejects.toMatchObject({ state: 'stopped' });
    expect(rig.watchManager().calls.filter((c) => gvrKey(c.gvr) === gvrKey(databases))).toEqual([]);
  });

  it('shuts down at once when started with an aborted signal', async () => {
    const rig = build();
    rig.abort.abort();
    start(rig);
    await rig.running;
    expect(rig.watchManager().isShutDown()).toBe(true);
    expect(rig.queue().shuttingDown()).toBe(true);
  });
});

describe('DynamicController: register and deregister', () => {
  it('refuses a malformed GVR before anything else, even before start', async () => {
    const malformed = { group: '', version: 'v1', resource: 'namespaces/default/configmaps' };
    const idle = build();
    await expect(idle.controller.register(malformed, () => Promise.resolve())).rejects.toThrow(InvalidGroupVersionResourceError);
    const rig = start(build());
    const err = await rig.controller.register(malformed, () => Promise.resolve()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGroupVersionResourceError);
    expect((err as Error).message).toContain('namespaces/default/configmaps');
    expect(rig.watchManager().calls).toEqual([]);
    expect(rig.controller.registeredGVRs()).toEqual([]);
  });

  it('refuses a handler that is not a function', async () => {
    const rig = start(build());
    await expect(rig.controller.register(webapps, 'reconcile' as unknown as Handler)).rejects.toThrow(TypeError);
    expect(rig.controller.registeredGVRs()).toEqual([]);
  });

  it('watches the parent under its own owner id and reports it registered and synced', async () => {
    const rig = start(build());
    await rig.controller.register(webapps, () => Promise.resolve());
    await rig.controller.register(databases, () => Promise.resolve());
    expect(rig.watchManager().calls).toEqual([
      { op: 'ensure', gvr: webapps, ownerId: `parent:${gvrKey(webapps)}` },
      { op: 'ensure', gvr: databases, ownerId: `parent:${gvrKey(databases)}` },
    ]);
    expect(rig.controller.registeredGVRs()).toEqual([webapps, databases]);
    expect(rig.controller.hasSynced(webapps)).toBe(true);
    expect(rig.controller.hasSynced(configmaps)).toBe(false);
    expect(rig.controller.informer(webapps)).toBe(informerOf(rig));
    expect(rig.controller.activeWatchCount()).toBe(2);
  });

  it('reconciles the instances its informer lists, flagged as the initial list', async () => {
    const h = new HandlerRecorder();
    const rig = await running(h.handler);
    rig.watchManager().emit(event('add', a, { initialList: true }));
    rig.watchManager().emit(event('add', b, { initialList: true }));
    await settled(rig, 2);
    expect(h.keys()).toEqual(['ns/a', 'ns/b']);
  });

  it('enqueues the instances of a share taken over (a shard rebalance) as takeover, the low priority, not as live changes', async () => {
    const h = new HandlerRecorder();
    const rig = await running(h.handler);
    rig.watchManager().emit(event('add', a, { takeover: true }));
    rig.watchManager().emit(event('add', b));
    await settled(rig, 2);
    const sources = rig
      .queue()
      .calls.filter((c) => c.op === 'add')
      .map((c) => [`${c.item.namespace}/${c.item.name}`, c.source]);
    expect(sources).toEqual([
      ['ns/a', 'takeover'],
      ['ns/b', 'live'],
    ]);
  });

  it('swaps the handler on re-register and reconciles every cached instance again', async () => {
    const first = new HandlerRecorder();
    const rig = await running(first.handler);
    addInstance(rig, a);
    addInstance(rig, b);
    await settled(rig, 2);
    const second = new HandlerRecorder();
    await rig.controller.register(webapps, second.handler);
    await settled(rig, 4);
    expect(second.keys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(first.count()).toBe(2);
    expect(rig.controller.registeredGVRs()).toEqual([webapps]);
    expect(rig.watchManager().owners(webapps)).toEqual([`parent:${gvrKey(webapps)}`]);
  });

  it('reconciles the cached instances of a GVR already watched as a child when it is first registered', async () => {
    const rig = start(build());
    await rig.watchManager().ensureWatch(webapps, 'child-owner');
    informerOf(rig).add(fakeObject({ ...a }));
    const h = new HandlerRecorder();
    await rig.controller.register(webapps, h.handler);
    await settled(rig, 1);
    expect(h.keys()).toEqual(['ns/a']);
  });

  it('rejects with ParentSyncError when the informer cannot sync, leaving no handler behind', async () => {
    const rig = start(build());
    const cause = new Error('the server could not find the requested resource');
    rig.watchManager().failEnsure(webapps, cause);
    const err = await rig.controller.register(webapps, () => Promise.resolve()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParentSyncError);
    expect((err as ParentSyncError).gvr).toEqual(webapps);
    expect((err as Error).message).toContain(gvrKey(webapps));
    expect((err as Error).cause).toMatchObject({ cause });
    expect(rig.controller.registeredGVRs()).toEqual([]);
    expect(rig.coordinator().callsOf('removeParentGVR')).toEqual([{ op: 'removeParentGVR', parentGVR: webapps }]);
    // Nothing routes events to a handler any more.
    rig.watchManager().emit(event('add', a));
    expect(enqueued(rig)).toEqual([]);
  });

  it('keeps the previous handler when a re-registration fails', async () => {
    const first = new HandlerRecorder();
    const rig = await running(first.handler);
    rig.watchManager().failEnsure(webapps, new Error('forbidden'));
    const second = new HandlerRecorder();
    await expect(rig.controller.register(webapps, second.handler)).rejects.toThrow(ParentSyncError);
    expect(rig.controller.registeredGVRs()).toEqual([webapps]);
    expect(rig.coordinator().callsOf('removeParentGVR')).toEqual([]);
    addInstance(rig, a);
    await settled(rig, 1);
    expect(first.keys()).toEqual(['ns/a']);
    expect(second.count()).toBe(0);
  });

  it('leaves nothing registered when the parent is deregistered while its informer syncs', async () => {
    const rig = start(build({}, { manualSync: true }));
    const registering = rig.controller.register(webapps, () => Promise.resolve());
    await rig.controller.deregister(webapps);
    rig.watchManager().resolveSync(webapps);
    await registering;
    expect(rig.controller.registeredGVRs()).toEqual([]);
    expect(rig.logs.find('parent registered')).toEqual([]);
    expect(rig.watchManager().isWatching(webapps)).toBe(false);
    expect(rig.watchManager().anomalies).toEqual([]);
    rig.watchManager().emit(event('add', a));
    expect(enqueued(rig)).toEqual([]);
  });

  it('leaves nothing behind when two overlapping first registrations both fail', async () => {
    const rig = start(build({}, { manualSync: true }));
    const first = rig.controller.register(webapps, () => Promise.resolve()).catch((e: unknown) => e);
    const second = rig.controller.register(webapps, () => Promise.resolve()).catch((e: unknown) => e);
    expect(rig.watchManager().pendingSyncs(webapps)).toBe(2);
    rig.watchManager().rejectSync(webapps, new Error('forbidden'));
    rig.watchManager().rejectSync(webapps, new Error('forbidden'));
    expect(await first).toBeInstanceOf(ParentSyncError);
    expect(await second).toBeInstanceOf(ParentSyncError);
    expect(rig.controller.registeredGVRs()).toEqual([]);
    expect(rig.coordinator().callsOf('removeParentGVR')).toHaveLength(1);
  });

  it('on deregister drops the handler, the coordinator state of its instances and its parent watch', async () => {
    const h = new HandlerRecorder();
    const rig = await running(h.handler);
    await rig.controller.register(databases, () => Promise.resolve());
    await rig.controller.deregister(webapps);
    expect(rig.controller.registeredGVRs()).toEqual([databases]);
    expect(rig.coordinator().callsOf('removeParentGVR')).toEqual([{ op: 'removeParentGVR', parentGVR: webapps }]);
    expect(rig.watchManager().calls.at(-1)).toEqual({ op: 'release', gvr: webapps, ownerId: `parent:${gvrKey(webapps)}` });
    expect(rig.controller.informer(webapps)).toBeUndefined();
    expect(rig.controller.hasSynced(webapps)).toBe(false);
  });

  it('drops the items of a deregistered parent that are still queued, without running them', async () => {
    const held = gate();
    const h = new HandlerRecorder((req) => (req.name === 'a' ? held.promise : Promise.resolve()));
    const rig = await running(h.handler);
    addInstance(rig, a);
    await waitFor(() => h.count() === 1);
    addInstance(rig, b);
    await rig.controller.deregister(webapps);
    held.resolve();
    await settled(rig, 2);
    expect(h.keys()).toEqual(['ns/a']);
    expect(rig.observer.outcomes()).toEqual(['success', 'dropped']);
  });

  it('forgets the instance of a handler that was still running at deregister, once it returns', async () => {
    const held = gate();
    const rig = await running(async (req, ctx) => {
      await held.promise;
      await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
    });
    addInstance(rig, a);
    await waitFor(() => rig.coordinator().passes.length === 1);
    await rig.controller.deregister(webapps);
    expect(rig.coordinator().removedInstances()).toEqual([]);
    held.resolve();
    await settled(rig, 1);
    // The watch declared after removeParentGVR would otherwise hold its informer for no one.
    const ops = rig
      .coordinator()
      .calls.filter((c) => c.op !== 'routeEvent')
      .map((c) => c.op);
    expect(ops).toEqual(['beginPass', 'removeParentGVR', 'endPass', 'removeInstance']);
    expect(rig.coordinator().instanceWatchCount()).toBe(0);
  });

  it('ignores the deregistration of a GVR that is not registered', async () => {
    const rig = await running(() => Promise.resolve());
    const before = rig.watchManager().calls.length;
    await rig.controller.deregister(databases);
    expect(rig.watchManager().calls).toHaveLength(before);
    expect(rig.coordinator().callsOf('removeParentGVR')).toEqual([]);
    expect(rig.controller.registeredGVRs()).toEqual([webapps]);
  });
});

describe('DynamicController: parent events', () => {
  it('reconciles every add and delete, and every update whose generation changed', async () => {
    const h = new HandlerRecorder();
    const rig = await running(h.handler);
    const wm = rig.watchManager();
    wm.emit(event('add', a, { generation: 1 }));
    wm.emit(event('update', b, { generation: 2, oldGeneration: 1 }));
    wm.emit(event('delete', { namespace: 'ns', name: 'c' }));
    await settled(rig, 3);
    expect(h.keys()).toEqual(['ns/a', 'ns/b', 'ns/c']);
  });

  it('skips an update that kept the generation (status or metadata only), but still reports the event', async () => {
    const h = new HandlerRecorder();
    const rig = await running(h.handler);
    rig.watchManager().emit(event('update', a, { generation: 3, oldGeneration: 3, labels: { tier: 'web' } }));
    expect(enqueued(rig)).toEqual([]);
    expect(rig.observer.parentEvents).toEqual([{ gvr: webapps, type: 'update' }]);
  });

  it('reconciles a resync replay even though its generation did not change', async () => {
    const rig = await running(() => Promise.resolve());
    rig.watchManager().emit(event('update', a, { generation: 3, oldGeneration: 3, resync: true }));
    expect(enqueued(rig)).toEqual(['ns/a']);
  });

  it('reconciles every update of a resource that does not track generation', async () => {
    const rig = await running(() => Promise.resolve());
    rig.watchManager().emit(event('update', a));
    rig.watchManager().emit(event('update', b, { generation: 2 }));
    expect(enqueued(rig)).toEqual(['ns/a', 'ns/b']);
  });

  it('hands every event to the watch coordinator, and enqueues only those of registered parents', async () => {
    const rig = await running(() => Promise.resolve());
    const parentAdd = event('add', a);
    const childAdd = event('add', { namespace: 'ns', name: 'a-config' }, {}, configmaps);
    rig.watchManager().emit(parentAdd);
    rig.watchManager().emit(childAdd);
    expect(rig.coordinator().routedEvents()).toEqual([parentAdd, childAdd]);
    expect(enqueued(rig)).toEqual(['ns/a']);
    expect(rig.observer.parentEvents).toEqual([{ gvr: webapps, type: 'add' }]);
  });

  it('reconciles an instance the watch coordinator asks for', async () => {
    const h = new HandlerRecorder();
    const rig = await running(h.handler);
    rig.coordinator().enqueue(webapps, b);
    await settled(rig, 1);
    expect(h.keys()).toEqual(['ns/b']);
  });

  it('contains an event handling failure, so the informer that delivered it is not broken', async () => {
    const rig = await running(() => Promise.resolve());
    rig.coordinator().routeEvent = () => {
      throw new Error('routing bug');
    };
    expect(() => rig.watchManager().emit(event('add', a))).not.toThrow();
    expect(rig.logs.find('event handling failed')[0]).toMatchObject({ level: 50, gvr: gvrKey(webapps), instance: 'ns/a' });
    expect(enqueued(rig)).toEqual(['ns/a']);
  });
});

describe('DynamicController: deleted instances', () => {
  it('forgets a deleted instance in the coordinator at once when no handler for it runs, and reconciles it once more', async () => {
    const h = new HandlerRecorder();
    const rig = await running(h.handler);
    addInstance(rig, a);
    await settled(rig, 1);
    deleteInstance(rig, a);
    expect(rig.coordinator().removedInstances()).toEqual(['ns/a']);
    await settled(rig, 2);
    expect(h.keys()).toEqual(['ns/a', 'ns/a']);
  });

  it('forgets an instance deleted while its handler runs only after that pass ends, then reconciles it once more', async () => {
    const held = gate();
    let calls = 0;
    const h = new HandlerRecorder(() => (calls++ === 0 ? held.promise : Promise.resolve()));
    const rig = await running(h.handler);
    addInstance(rig, a);
    await waitFor(() => h.count() === 1);
    deleteInstance(rig, a);
    expect(rig.coordinator().removedInstances()).toEqual([]);
    held.resolve();
    await settled(rig, 2);
    const ops = rig
      .coordinator()
      .calls.filter((c) => c.op !== 'routeEvent')
      .map((c) => c.op);
    expect(ops).toEqual(['beginPass', 'endPass', 'removeInstance', 'beginPass', 'endPass', 'removeInstance']);
    expect(h.count()).toBe(2);
  });

  it('drops the watches a deleted instance declared, whatever its last handler returned', async () => {
    let fail = false;
    const rig = await running(async (req, ctx) => {
      await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: req.namespace, name: `${req.name}-config` });
      if (fail) throw requeue.neededAfter(null, 60_000);
    });
    addInstance(rig, a);
    await settled(rig, 1);
    expect(rig.coordinator().instanceWatchCount()).toBe(1);
    fail = true;
    deleteInstance(rig, a);
    await settled(rig, 2);
    expect(rig.coordinator().instanceWatchCount()).toBe(0);
  });
});

describe('DynamicController: shutdown', () => {
  it('stops the informers and the queue, aborts the handlers and resolves once they returned', async () => {
    const reasons: unknown[] = [];
    const h = new HandlerRecorder(
      (_req, ctx) =>
        new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            reasons.push(ctx.signal.reason);
            resolve();
          });
        }),
    );
    const rig = await running(h.handler);
    addInstance(rig, a);
    addInstance(rig, b);
    await waitFor(() => h.count() === 1);
    const reason = new Error('SIGTERM');
    rig.abort.abort(reason);
    await rig.running;
    expect(reasons).toEqual([reason]);
    expect(rig.watchManager().isShutDown()).toBe(true);
    expect(rig.queue().shuttingDown()).toBe(true);
    // b was still queued: released without running its handler.
    expect(h.keys()).toEqual(['ns/a']);
    expect(rig.queue().processing()).toEqual([]);
    expect(rig.controller.isStarted()).toBe(false);
    expect(rig.logs.find('dynamic controller stopped')).toHaveLength(1);
  });

  it('rejects with ShutdownTimeoutError naming the handlers still running after queueShutdownTimeoutMs', async () => {
    const held = gate();
    const rig = await running(() => held.promise, { queueShutdownTimeoutMs: 2_000 });
    addInstance(rig, a);
    await waitFor(() => rig.queue().processing().length === 1);
    let outcome: unknown;
    rig.running!.then(
      () => (outcome = 'resolved'),
      (err: unknown) => (outcome = err),
    );
    rig.abort.abort();
    await rig.clock.advanceAsync(1_999);
    expect(outcome).toBeUndefined();
    await rig.clock.advanceAsync(1);
    expect(outcome).toBeInstanceOf(ShutdownTimeoutError);
    expect((outcome as ShutdownTimeoutError).timeoutMs).toBe(2_000);
    expect((outcome as ShutdownTimeoutError).inFlight).toEqual([workItemKey({ gvr: webapps, ...a })]);
    expect(rig.controller.isStarted()).toBe(false);
  });

  it('waits for running handlers without limit when queueShutdownTimeoutMs is 0', async () => {
    const held = gate();
    const rig = await running(() => held.promise, { queueShutdownTimeoutMs: 0 });
    addInstance(rig, a);
    await waitFor(() => rig.queue().processing().length === 1);
    let outcome: unknown;
    rig.running!.then(
      () => (outcome = 'resolved'),
      (err: unknown) => (outcome = err),
    );
    rig.abort.abort();
    await rig.clock.advanceAsync(24 * 60 * 60 * 1000);
    expect(outcome).toBeUndefined();
    held.resolve();
    await rig.running;
    expect(outcome).toBe('resolved');
    expect(rig.clock.pendingTimers()).toBe(0);
  });

  it('carries on shutting down when the watch manager fails to shut down', async () => {
    const rig = await running(() => Promise.resolve());
    rig.watchManager().shutdown = () => {
      throw new Error('informer stuck');
    };
    rig.abort.abort();
    await rig.running;
    expect(rig.logs.find('watch manager shutdown failed')[0]).toMatchObject({ level: 50 });
    expect(rig.queue().shuttingDown()).toBe(true);
  });
});

describe('DynamicController: why items are enqueued', () => {
  /** `source` of every add, addAfter and addRateLimited of `name`, in order. */
  function sourcesOf(rig: Rig, name: string): string[] {
    return rig
      .queue()
      .calls.filter((c) => c.op !== 'done' && c.op !== 'forget' && c.item.name === name)
      .map((c) => `${c.op}:${c.source ?? '-'}`);
  }

  it('tells the queue an initial-list add, a resync, a live change and a child change apart', async () => {
    const rig = await running(async () => {});
    const who = { namespace: 'ns', name: 'a' };
    informerOf(rig).add(fakeObject({ ...who, generation: 1 }));
    rig.watchManager().emit(event('add', who, { generation: 1, initialList: true }));
    await settled(rig, 1);
    rig.watchManager().emit(event('update', who, { generation: 1, oldGeneration: 1, resync: true }));
    await settled(rig, 2);
    rig.watchManager().emit(event('update', who, { generation: 2, oldGeneration: 1 }));
    await settled(rig, 3);
    rig.coordinator().enqueue(webapps, who);
    await settled(rig, 4);
    expect(sourcesOf(rig, 'a')).toEqual(['add:initial-list', 'add:resync', 'add:live', 'add:live']);
  });

  it("tells the queue a handler's requeue and a failed pass's retry apart", async () => {
    let pass = 0;
    const rig = await running(async () => {
      pass++;
      if (pass === 1) throw requeue.needed();
      if (pass === 2) throw requeue.neededAfter(null, 1_000);
      if (pass === 3) throw new Error('boom');
    });
    addInstance(rig, { namespace: 'ns', name: 'a' });
    await settled(rig, 2);
    await rig.clock.advanceAsync(1_000);
    await settled(rig, 3);
    await rig.clock.advanceAsync(1_000);
    await settled(rig, 4);
    expect(sourcesOf(rig, 'a')).toEqual(['add:live', 'add:requeue', 'addAfter:requeue', 'addRateLimited:retry']);
  });
});
