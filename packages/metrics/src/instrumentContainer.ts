import {
  DynamicController,
  TOKENS,
  type WatchCoordinator,
  type WatchCoordinatorDeps,
  type WatchCoordinatorFactory,
  type WatchManager,
  type WatchManagerFactory,
} from '@protean/core';
import type { Container, ServiceIdentifier } from 'inversify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ControllerMetrics } from './ControllerMetrics.js';
import { MetricsServer, type ReadinessCheck } from './MetricsServer.js';
import { PrometheusQueueMetrics } from './PrometheusQueueMetrics.js';

/** Options of {@link instrumentContainer}. */
export interface InstrumentOptions {
  /** Registry to register on; a fresh one by default (never the global one, so tests stay isolated). */
  readonly registry?: Registry;
  /** Also export Node.js process metrics (`process_*`, `nodejs_*`); default true. */
  readonly processMetrics?: boolean;
}

/** What {@link instrumentContainer} gives back. */
export interface ProteanMetrics {
  readonly registry: Registry;
  readonly controller: ControllerMetrics;
  /**
   * `/readyz` checks: every registered parent GVR's informer has synced. A
   * standby (leader election) is ready once synced: it is ready to lead.
   */
  readiness(): ReadinessCheck[];
  /**
   * Starts an HTTP server with `/metrics`, `/healthz` and `/readyz`;
   * `readiness` adds checks of your own to the built-in one.
   */
  serve(options?: { port?: number; host?: string; readiness?: readonly ReadinessCheck[] }): Promise<MetricsServer>;
}

/**
 * Instruments a composed container: binds the Prometheus queue metrics and
 * controller observer, and decorates the watch-manager and
 * watch-coordinator factories (container activation handlers) so informer
 * events, informer sync time and routing are counted, whichever
 * implementations are bound, also ones bound after this call. Call it
 * before the first `container.get(DynamicController)`.
 */
export function instrumentContainer(container: Container, options: InstrumentOptions = {}): ProteanMetrics {
  const registry = options.registry ?? new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const metrics = new ControllerMetrics(registry);
  rebindConstant(container, TOKENS.queueMetricsProvider, new PrometheusQueueMetrics(registry));
  rebindConstant(container, TOKENS.controllerObserver, metrics);

  let watchManager: WatchManager | undefined;
  let watchCoordinator: WatchCoordinator | undefined;
  container.onActivation(TOKENS.watchManagerFactory, (_ctx, factory): WatchManagerFactory => (deps) => {
    const inner = factory({
      ...deps,
      onEvent: (event) => {
        metrics.observeInformerEvent(event);
        deps.onEvent(event);
      },
    });
    watchManager = timedWatchManager(inner, metrics);
    return watchManager;
  });
  // With leader election, a standby exports dynamic_controller_leader 0 before it ever leads.
  container.onActivation(TOKENS.leadership, (_ctx, leadership) => {
    metrics.observeStandby(leadership.identity);
    return leadership;
  });
  container.onActivation(TOKENS.watchCoordinatorFactory, (_ctx, factory): WatchCoordinatorFactory => (deps) => {
    watchCoordinator = countingWatchCoordinator(factory, deps, metrics);
    return watchCoordinator;
  });

  // The controller is resolved lazily: gauges read it only once it exists.
  const controller = (): DynamicController | undefined => (watchManager === undefined ? undefined : container.get(DynamicController));
  metrics.attach({
    queueLength: () => controller()?.queueLength() ?? 0,
    registeredGvrCount: () => controller()?.registeredGVRs().length ?? 0,
    activeWatchCount: () => watchManager?.activeWatchCount() ?? 0,
    instanceWatchCount: () => watchCoordinator?.instanceWatchCount() ?? 0,
    watchRequestCount: () => watchCoordinator?.watchRequestCount() ?? { scalar: 0, collection: 0 },
  });

  const readiness = (): ReadinessCheck[] => [
    {
      name: 'parent-informers-synced',
      ready: () => {
        const c = controller();
        if (c === undefined || !c.isStarted()) return { ready: false, reason: 'controller not started' };
        const pending = c.registeredGVRs().filter((gvr) => !c.hasSynced(gvr));
        return pending.length === 0
          ? { ready: true }
          : { ready: false, reason: `not synced: ${pending.map((g) => `${g.group}/${g.version}/${g.resource}`).join(', ')}` };
      },
    },
  ];
  return {
    registry,
    controller: metrics,
    readiness,
    serve: ({ readiness: extra = [], ...opts } = {}) => MetricsServer.start({ registry, readiness: [...readiness(), ...extra], ...opts }),
  };
}

/** A watch coordinator from `factory` that counts, per event, whether it enqueued any instance. */
function countingWatchCoordinator(
  factory: WatchCoordinatorFactory,
  deps: WatchCoordinatorDeps,
  metrics: ControllerMetrics,
): WatchCoordinator {
  let matched = false;
  const inner = factory({
    ...deps,
    enqueue: (parent, instance) => {
      matched = true;
      deps.enqueue(parent, instance);
    },
  });
  return {
    routeEvent(event) {
      matched = false;
      inner.routeEvent(event);
      metrics.observeRoute(event.gvr, matched);
    },
    forInstance: (parent, instance) => inner.forInstance(parent, instance),
    beginPass: (parent, instance) => inner.beginPass(parent, instance),
    removeInstance: (parent, instance) => inner.removeInstance(parent, instance),
    removeParentGVR: (parent) => inner.removeParentGVR(parent),
    instanceWatchCount: () => inner.instanceWatchCount(),
    watchRequestCount: () => inner.watchRequestCount(),
  };
}

/** A watch manager that times the first sync of each informer it starts. */
function timedWatchManager(inner: WatchManager, metrics: ControllerMetrics): WatchManager {
  return {
    async ensureWatch(gvr, ownerId) {
      const fresh = inner.getInformer(gvr) === undefined;
      const started = performance.now();
      await inner.ensureWatch(gvr, ownerId);
      if (fresh) metrics.observeInformerSync(gvr, performance.now() - started);
    },
    releaseWatch: (gvr, ownerId) => inner.releaseWatch(gvr, ownerId),
    getInformer: (gvr) => inner.getInformer(gvr),
    activeWatchCount: () => inner.activeWatchCount(),
    shutdown: () => inner.shutdown(),
  };
}

function rebindConstant<T>(container: Container, token: ServiceIdentifier<T>, value: T): void {
  if (container.isBound(token)) container.rebind(token).toConstantValue(value);
  else container.bind(token).toConstantValue(value);
}
