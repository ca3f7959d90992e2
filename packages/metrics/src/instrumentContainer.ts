import {
  DynamicController,
  forwardEveryMember,
  gvrKey,
  type Logger,
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
import { InformerHealthRules, type InformerHealthOptions, type InformerStatus } from './InformerHealthRules.js';
import { MetricsServer, type ReadinessCheck } from './MetricsServer.js';
import type { ConnectionPoolView } from './permissions/AccessLogView.js';
import { PermissionsMonitor } from './permissions/PermissionsMonitor.js';
import { PrometheusQueueMetrics } from './PrometheusQueueMetrics.js';
import { StuckWorkersRule, type StuckWorkersOptions } from './StuckWorkersRule.js';
import { controllerStatusPage } from './statusPage/controllerStatusPage.js';
import type { RecentPassesRecorder } from './tracing/RecentPassesRecorder.js';
import { instrumentWebhooks, type WebhookServerSource } from './WebhookMetrics.js';

/** Options of {@link instrumentContainer}. */
export interface InstrumentOptions {
  /** Registry to register on; a fresh one by default (never the global one, so tests stay isolated). */
  readonly registry?: Registry;
  /** Also export Node.js process metrics (`process_*`, `nodejs_*`); default true. */
  readonly processMetrics?: boolean;
  /** Grace periods of the informer health rules (`/readyz`, `/healthz`, gauges); see `InformerHealthOptions`. */
  readonly health?: InformerHealthOptions;
  /** When `/healthz` counts the workers as stuck (`workers-progressing`); see `StuckWorkersOptions`. */
  readonly stuckWorkers?: StuckWorkersOptions;
  /** Serve `/statusz/informers` (JSON). Default true. */
  readonly statusEndpoint?: boolean;
  /**
   * Serve the live status page on the same port: `/statusz` (HTML),
   * `/statusz/status.json` and `/statusz/explain`. Default false.
   *
   * Easy to get wrong: it is read-only and shows metadata only, but that
   * metadata (object names, labels, watch declarations, error messages)
   * goes to whoever can reach the port; turn it on where the metrics port
   * is as private as the controller's logs.
   */
  readonly statusPage?: boolean;
  /**
   * The controller's connection pool (`sharedConnectionPool(kubeConfig)`
   * from `@protean/transport`, the one every Protean package uses for that
   * KubeConfig object): turns on the permissions check. `/readyz` gets a
   * `permissions` check that fails while the latest answer to some access
   * is a 403, naming it; the container's logger gets one warn line the
   * first time an access is refused and an info line when it is allowed
   * again; `dynamic_controller_forbidden_requests_total` counts refusals;
   * `/statusz/permissions` serves the access log as JSON (what the
   * `protean-permissions` CLI reads) and the status page shows a
   * Permissions section. Off without it.
   */
  readonly connectionPool?: ConnectionPoolView;
  /**
   * The span processor the status page's Recent passes (a waterfall of the
   * last passes) reads, added by the application to its OpenTelemetry
   * tracer provider's `spanProcessors`. Without it the section says how to
   * turn it on.
   */
  readonly recentPasses?: RecentPassesRecorder;
  /**
   * The controller's webhook server (`WebhookServer` of `@protean/webhooks`):
   * its reviews are counted (`instrumentWebhooks`), `/readyz` gets its
   * `webhooks` check (ready once it listens, so a Service sends reviews
   * only to replicas that answer them), and the status page shows a
   * Webhooks section.
   */
  readonly webhooks?: WebhookServerSource;
}

/** What {@link instrumentContainer} gives back. */
export interface ProteanMetrics {
  readonly registry: Registry;
  readonly controller: ControllerMetrics;
  /** The health rules in force (their grace periods). */
  readonly healthRules: InformerHealthRules;
  /** The stuck-workers rule in force (its grace period). */
  readonly stuckWorkersRule: StuckWorkersRule;
  /** The permissions check, with `connectionPool` given; undefined otherwise. */
  readonly permissions: PermissionsMonitor | undefined;
  /**
   * `/readyz` checks: every registered parent GVR's informer has synced
   * (`parent-informers-synced`), and none has been failing longer than the
   * readiness grace period or stalled (`parent-informers-healthy`). A
   * standby (leader election) is ready once synced: it is ready to lead.
   * With `connectionPool`, also `permissions`: no access is refused now.
   */
  readiness(): ReadinessCheck[];
  /**
   * `/healthz` checks: not every informer has been down longer than the
   * liveness grace period (`informers-progressing`), and not every worker is
   * busy with a pass older than `reconcileTimeoutMs` plus `stuckGraceMs`
   * (`workers-progressing`, naming the stuck instances and their ages).
   */
  liveness(): ReadinessCheck[];
  /** Every running informer with the health rules applied: what `/statusz/informers` serves. */
  informers(): InformerStatus[];
  /**
   * Starts an HTTP server with `/metrics`, `/healthz`, `/readyz`, (unless
   * `statusEndpoint: false`) `/statusz/informers` and (with
   * `statusPage: true`) the status page at `/statusz`; `readiness` and
   * `liveness` add checks of your own to the built-in ones.
   */
  serve(options?: {
    port?: number;
    host?: string;
    readiness?: readonly ReadinessCheck[];
    liveness?: readonly ReadinessCheck[];
  }): Promise<MetricsServer>;
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
  const webhooks = options.webhooks;
  if (webhooks !== undefined) instrumentWebhooks(registry, webhooks);
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
  const rules = new InformerHealthRules(options.health);
  const stuckWorkers = new StuckWorkersRule(options.stuckWorkers);
  const informers = (): InformerStatus[] => rules.assess(watchManager?.health?.() ?? [], controller()?.registeredGVRs() ?? []);
  metrics.attach({
    queueLength: () => controller()?.queueLength() ?? 0,
    registeredGvrCount: () => controller()?.registeredGVRs().length ?? 0,
    activeWatchCount: () => watchManager?.activeWatchCount() ?? 0,
    instanceWatchCount: () => watchCoordinator?.instanceWatchCount() ?? 0,
    watchRequestCount: () => watchCoordinator?.watchRequestCount() ?? { scalar: 0, collection: 0 },
    informers,
  });

  let permissionsLogger: Logger | undefined;
  const permissions =
    options.connectionPool === undefined
      ? undefined
      : new PermissionsMonitor(
          options.connectionPool.accessLog,
          () =>
            (permissionsLogger ??= container.isBound(TOKENS.logger)
              ? container.get(TOKENS.logger).child({ component: 'permissions' })
              : undefined),
          registry,
        );
  const readiness = (): ReadinessCheck[] => [
    {
      name: 'parent-informers-synced',
      ready: () => {
        const c = controller();
        if (c === undefined || !c.isStarted()) return { ready: false, reason: 'controller not started' };
        const pending = c.registeredGVRs().filter((gvr) => !c.hasSynced(gvr));
        if (pending.length === 0) return { ready: true };
        // A parent that cannot sync says why (a refused connection, a certificate that does not verify, a 403).
        const failing = new Map(informers().flatMap((i) => (i.failing === undefined ? [] : [[i.gvr, i.failing.cause] as const])));
        const named = pending.map((g) => {
          const key = gvrKey(g);
          const cause = failing.get(key);
          return cause === undefined ? key : `${key} (failing: ${cause})`;
        });
        return { ready: false, reason: `not synced: ${named.join(', ')}` };
      },
    },
    {
      name: 'parent-informers-healthy',
      ready: () => {
        // Unsynced parents are the check above's; this one is about watches lost after the sync.
        const sick = informers().filter((i) => i.parent && i.synced && !i.healthy);
        return sick.length === 0
          ? { ready: true }
          : { ready: false, reason: sick.map((i) => `${i.gvr}: ${i.problem ?? 'unhealthy'}`).join('; ') };
      },
    },
    ...(permissions === undefined ? [] : [permissions.readiness()]),
    ...(webhooks === undefined ? [] : [webhooks.readiness()]),
  ];
  const liveness = (): ReadinessCheck[] => [
    {
      name: 'informers-progressing',
      ready: () => {
        const all = informers();
        if (all.length === 0 || all.some((i) => !i.down)) return { ready: true };
        const detail = all.map((i) => `${i.gvr}: ${i.problem ?? 'down'}`).join('; ');
        return {
          ready: false,
          reason: `every informer has been failing or silent for over ${Math.round(rules.livenessGraceMs / 1000)} s: ${detail}`,
        };
      },
    },
    {
      name: 'workers-progressing',
      ready: () => {
        const c = controller();
        if (c === undefined) return { ready: true };
        const verdict = stuckWorkers.assess(c.queueStatus());
        return verdict.stuck ? { ready: false, reason: verdict.reason! } : { ready: true };
      },
    },
  ];
  const statusPage = (): unknown => ({
    readinessGraceMs: rules.readinessGraceMs,
    livenessGraceMs: rules.livenessGraceMs,
    maxIdleMs: rules.maxIdleMs,
    informers: informers(),
  });
  return {
    registry,
    controller: metrics,
    healthRules: rules,
    stuckWorkersRule: stuckWorkers,
    permissions,
    readiness,
    liveness,
    informers,
    serve: ({ readiness: extraReady = [], liveness: extraLive = [], ...opts } = {}) =>
      MetricsServer.start({
        registry,
        readiness: [...readiness(), ...extraReady],
        liveness: [...liveness(), ...extraLive],
        status: {
          ...(options.statusEndpoint === false ? {} : { informers: statusPage }),
          ...(permissions === undefined ? {} : { permissions: () => permissions.status() }),
        },
        ...(options.statusPage === true
          ? {
              statusPage: controllerStatusPage(
                controller,
                informers,
                permissions === undefined ? undefined : () => permissions.status(),
                options.recentPasses,
                webhooks === undefined ? undefined : () => webhooks.status(),
              ),
            }
          : {}),
        ...opts,
      }),
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
    enqueue: (parent, instance, trigger) => {
      matched = true;
      deps.enqueue(parent, instance, trigger);
    },
  });
  return forwardEveryMember<WatchCoordinator>({
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
    declaredWatches: inner.declaredWatches === undefined ? undefined : () => inner.declaredWatches!(),
    explain: inner.explain === undefined ? undefined : (query) => inner.explain!(query),
  });
}

/** A watch manager that times the first sync of each informer it starts. */
function timedWatchManager(inner: WatchManager, metrics: ControllerMetrics): WatchManager {
  return forwardEveryMember<WatchManager>({
    async ensureWatch(gvr, ownerId) {
      const fresh = inner.getInformer(gvr) === undefined;
      const started = performance.now();
      await inner.ensureWatch(gvr, ownerId);
      if (fresh) metrics.observeInformerSync(gvr, performance.now() - started);
    },
    ensureObjects:
      inner.ensureObjects === undefined
        ? undefined
        : async (gvr, ownerId, options) => {
            const fresh = inner.getInformer(gvr) === undefined;
            const started = performance.now();
            await inner.ensureObjects!(gvr, ownerId, options);
            if (fresh) metrics.observeInformerSync(gvr, performance.now() - started);
          },
    whenAvailable: inner.whenAvailable === undefined ? undefined : (refusal, signal) => inner.whenAvailable!(refusal, signal),
    releaseWatch: (gvr, ownerId) => inner.releaseWatch(gvr, ownerId),
    getInformer: (gvr) => inner.getInformer(gvr),
    activeWatchCount: () => inner.activeWatchCount(),
    shutdown: () => inner.shutdown(),
    health: inner.health === undefined ? undefined : () => inner.health!(),
  });
}

function rebindConstant<T>(container: Container, token: ServiceIdentifier<T>, value: T): void {
  if (container.isBound(token)) container.rebind(token).toConstantValue(value);
  else container.bind(token).toConstantValue(value);
}
