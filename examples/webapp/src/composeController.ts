import type { KubeConfigLike } from '@protean/transport';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, gvrKey, TOKENS, type Config, type InformerSource, type Logger } from '@protean/core';
import { instrumentContainer, type ProteanMetrics, type RecentPassesRecorder } from '@protean/metrics';
import { queueModule } from '@protean/queue';
import { sharedConnectionPool } from '@protean/transport';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import { InformerCountProbe, type InformerChange } from './InformerCountProbe.js';
import { CONFIGMAPS, DEMO_GROUP } from './kinds.js';

/** Options of {@link composeController}. */
export interface ComposeOptions {
  readonly kubeConfig: KubeConfigLike;
  readonly logger: Logger;
  /** Default {@link EXAMPLE_CONFIG}. */
  readonly config?: Partial<Config>;
  /** Called for every informer that starts or stops. */
  readonly onInformerChange?: (change: InformerChange) => void;
  /** Export Node.js process metrics too (default true). */
  readonly processMetrics?: boolean;
  /** Serve the status page (`/statusz`) with the metrics (default false; see `InstrumentOptions.statusPage`). */
  readonly statusPage?: boolean;
  /** The span processor the status page's Recent passes reads (`--trace`); without it the section says how to turn it on. */
  readonly recentPasses?: RecentPassesRecorder;
  /** Replaces the Kubernetes informer source (a shard's filtered source, for one). */
  readonly informerSource?: InformerSource;
}

/** The example's controller settings: two workers, a 10 s shutdown timeout, the seed's defaults otherwise. */
export const EXAMPLE_CONFIG: Partial<Config> = Object.freeze({ workers: 2, queueShutdownTimeoutMs: 10_000 });

/**
 * What the example may watch: its parent kinds (any kind of its group) and
 * the ConfigMaps they own. Anything else an instance declared would be
 * refused (`ResourceNotAllowedError`), so its RBAC stays these resources.
 */
export const EXAMPLE_ALLOWED_RESOURCES: readonly string[] = Object.freeze([`${DEMO_GROUP}/*/*`, gvrKey(CONFIGMAPS)]);

/** A composed controller and what the example observes it with. */
export interface ComposedController {
  readonly controller: DynamicController;
  readonly metrics: ProteanMetrics;
  readonly informers: InformerCountProbe;
}

/**
 * Builds the DynamicController the way any Protean application does: one
 * Inversify container loaded with the core, queue, watch-manager and
 * coordinator modules, instrumented for Prometheus and for the permissions
 * used on the KubeConfig's connection, with the watches bounded by
 * {@link EXAMPLE_ALLOWED_RESOURCES}. The only addition is the
 * {@link InformerCountProbe} around the bound watch manager factory.
 *
 * Easy to get wrong: every rebind and `instrumentContainer` must happen
 * before `container.get(DynamicController)`, which builds the controller
 * (a singleton) from whatever is bound at that moment.
 */
export function composeController(options: ComposeOptions): ComposedController {
  const container = new Container();
  container.load(
    coreModule(options.config ?? EXAMPLE_CONFIG, options.logger),
    queueModule(),
    watchManagerModule({ kubeConfig: options.kubeConfig, allowedResources: EXAMPLE_ALLOWED_RESOURCES }),
    coordinatorModule(),
  );
  if (options.informerSource !== undefined) container.rebind(TOKENS.informerSource).toConstantValue(options.informerSource);
  const informers = new InformerCountProbe(options.onInformerChange);
  // Decorates whichever watch manager factory is bound when the controller is built.
  container.onActivation(TOKENS.watchManagerFactory, (_ctx, factory) => informers.wrap(factory));
  const metrics = instrumentContainer(container, {
    processMetrics: options.processMetrics ?? true,
    statusPage: options.statusPage ?? false,
    ...(options.recentPasses === undefined ? {} : { recentPasses: options.recentPasses }),
    // The pool every request of this KubeConfig object goes through (informers, the handler's client):
    // refusals fail /readyz by name, and /statusz/permissions lists what was used.
    connectionPool: sharedConnectionPool(options.kubeConfig),
  });
  return { controller: container.get(DynamicController), metrics, informers };
}
