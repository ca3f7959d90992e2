import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import {
  coreModule,
  DynamicController,
  silentLogger,
  TOKENS,
  type WatchCoordinator,
  type WatchCoordinatorDeps,
  type GroupVersionResource,
  type WatchEvent,
  type WorkQueueFactory,
  type WorkQueueOptions,
} from '@protean/core';
import { coordinatorModule, IndexedWatchCoordinator } from '@protean/coordinator';
import { createWorkQueueFactory, queueModule } from '@protean/queue';
import { InformerWatchManager, watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import {
  createTestController,
  FakeInformerSource,
  HandlerRecorder,
  NoopInstanceWatcher,
  waitFor,
  type TestController,
} from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

/** A cluster nobody listens on: the Kubernetes informer source must never be used. */
function unreachableKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'none', server: 'https://127.0.0.1:9', skipTLSVerify: true }],
    users: [{ name: 'nobody', token: 'unused' }],
    contexts: [{ name: 'none', cluster: 'none', user: 'nobody' }],
    currentContext: 'none',
  });
  return kc;
}

describe('DynamicController dependency injection', () => {
  let t: TestController | undefined;
  const stops: (() => Promise<void>)[] = [];

  afterEach(async () => {
    await t?.dispose();
    t = undefined;
    for (const stop of stops.splice(0)) await stop();
  });

  it('is built by the normative composition, with the informer source replaced by rebinding its token', async () => {
    const container = new Container();
    container.load(
      coreModule({ queueShutdownTimeoutMs: 5_000 }, silentLogger()),
      queueModule(),
      watchManagerModule({ kubeConfig: unreachableKubeConfig() }),
      coordinatorModule(),
    );
    const source = new FakeInformerSource();
    source.add(parent, { name: 'a', namespace: 'ns' });
    container.rebind(TOKENS.informerSource).toConstantValue(source);

    const controller = container.get(DynamicController);
    expect(container.get(DynamicController)).toBe(controller); // singleton
    const abort = new AbortController();
    const running = controller.start(abort.signal);
    stops.push(async () => {
      abort.abort();
      await running;
    });
    const h = new HandlerRecorder();
    await controller.register(parent, h.handler);
    expect(source.informers(parent)).toHaveLength(1);
    await waitFor(() => h.count() === 1);
    expect(h.keys()).toEqual(['ns/a']);
  });

  it('is built without a container by DynamicController.create', async () => {
    const source = new FakeInformerSource();
    source.add(parent, { name: 'a', namespace: 'ns' });
    const controller = DynamicController.create({
      config: { workers: 2 },
      logger: silentLogger(),
      informerSource: source,
      workQueueFactory: createWorkQueueFactory(),
      watchManagerFactory: (d) => new InformerWatchManager(d.source, d.resyncPeriodMs, d.onEvent, d.logger),
      watchCoordinatorFactory: (d) => new IndexedWatchCoordinator(d.watchManager, d.enqueue, d.logger),
    });
    expect(controller.watchCoordinator()).toBeInstanceOf(IndexedWatchCoordinator);
    const abort = new AbortController();
    const running = controller.start(abort.signal);
    stops.push(async () => {
      abort.abort();
      await running;
    });
    const h = new HandlerRecorder();
    await controller.register(parent, h.handler);
    await waitFor(() => h.count() === 1);
  });

  it('uses the work queue factory bound to TOKENS.workQueueFactory, with the configured limits', async () => {
    const built: WorkQueueOptions<unknown>[] = [];
    const added: string[] = [];
    const real = createWorkQueueFactory();
    const recording: WorkQueueFactory = <T>(options: WorkQueueOptions<T>) => {
      built.push(options as WorkQueueOptions<unknown>);
      const queue = real(options);
      const add = queue.add.bind(queue);
      queue.add = (item: T) => {
        added.push(options.key(item));
        add(item);
      };
      return queue;
    };
    t = createTestController({
      config: { minRetryDelayMs: 7, maxRetryDelayMs: 70, rateLimit: 33, burstLimit: 44 },
      configure: (c) => c.rebind(TOKENS.workQueueFactory).toConstantValue(recording),
    });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() === 1);
    expect(built).toHaveLength(1);
    expect(built[0]).toMatchObject({
      name: 'dynamic-controller-queue',
      limits: { minRetryDelayMs: 7, maxRetryDelayMs: 70, qps: 33, burst: 44 },
    });
    expect(added).toEqual(['demo.protean.dev/v1/webapps|ns/a']);
  });

  it('uses the watch coordinator built by TOKENS.watchCoordinatorFactory: it sees every event and its enqueue reaches the handler', async () => {
    const routed: WatchEvent[] = [];
    const removedParents: GroupVersionResource[] = [];
    let deps: WatchCoordinatorDeps | undefined;
    const watchCoordinator: WatchCoordinator = {
      routeEvent: (event) => void routed.push(event),
      forInstance: () => new NoopInstanceWatcher(),
      beginPass: () => new NoopInstanceWatcher(),
      removeInstance: () => {},
      removeParentGVR: (gvr) => void removedParents.push(gvr),
      instanceWatchCount: () => 0,
      watchRequestCount: () => ({ scalar: 0, collection: 0 }),
    };
    t = createTestController({
      configure: (c) =>
        c.rebind(TOKENS.watchCoordinatorFactory).toConstantValue((d) => {
          deps = d;
          return watchCoordinator;
        }),
    });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    expect(t.controller.watchCoordinator()).toBe(watchCoordinator);
    expect(deps!.watchManager).toBe(t.watchManager);
    // Parent events go to the watch coordinator too: a GVR can be a parent and a child.
    await t.waitFor(() => routed.length === 1 && h.count() === 1);
    expect(routed[0]).toMatchObject({ type: 'add', gvr: parent, namespace: 'ns', name: 'a' });

    deps!.enqueue(parent, { namespace: 'ns', name: 'from-watch coordinator' });
    await t.waitFor(() => h.count() === 2);
    expect(h.keys()).toEqual(['ns/a', 'ns/from-watch coordinator']);

    await t.controller.deregister(parent);
    expect(removedParents).toEqual([parent]);
  });
});
