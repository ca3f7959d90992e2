import type { KubeConfigLike } from '@protean/transport';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, TOKENS, type Config, type InformerSource, type Logger } from '@protean/core';
import { instrumentContainer, type ProteanMetrics } from '@protean/metrics';
// #if webhooks
import type { WebhookServerSource } from '@protean/metrics';
// #endif
import { queueModule } from '@protean/queue';
import { sharedConnectionPool } from '@protean/transport';
import { watchManagerModule } from '@protean/watch-manager';
import { Container, type ContainerModule } from 'inversify';

/** Options of {@link composeController}. */
export interface ComposeOptions {
  readonly kubeConfig: KubeConfigLike;
  readonly logger: Logger;
  readonly config?: Partial<Config>;
  /** More modules to load, e.g. `leaderElectionModule(...)`. */
  readonly modules?: readonly ContainerModule[];
  /** Replaces the informer source (a shard's filtered source, for one). */
  readonly informerSource?: InformerSource;
  // #if webhooks
  /** The webhook server: its reviews counted, its readiness on /readyz, its section on the status page. */
  readonly webhooks?: WebhookServerSource;
  // #endif
}

/** A composed controller and its Prometheus metrics (`metrics.serve()` starts /metrics, /healthz, /readyz, /statusz). */
export interface ComposedController {
  readonly controller: DynamicController;
  readonly metrics: ProteanMetrics;
}

/**
 * Builds the DynamicController from one Inversify container: the core,
 * queue, watch-manager and coordinator modules, then yours, instrumented
 * for Prometheus and the status page.
 *
 * Easy to get wrong: every rebind and `instrumentContainer` must happen
 * before `container.get(DynamicController)`, which builds the controller.
 */
export function composeController(options: ComposeOptions): ComposedController {
  const container = new Container();
  container.load(
    coreModule({ workers: 2, queueShutdownTimeoutMs: 10_000, ...options.config }, options.logger),
    queueModule(),
    watchManagerModule({ kubeConfig: options.kubeConfig }),
    coordinatorModule(),
    ...(options.modules ?? []),
  );
  if (options.informerSource !== undefined) container.rebind(TOKENS.informerSource).toConstantValue(options.informerSource);
  // The pool every request of this KubeConfig goes through: a 403 on any of them fails /readyz (`permissions`),
  // is logged once, and shows on /statusz/permissions with every access the controller made.
  const metrics = instrumentContainer(container, {
    statusPage: true,
    connectionPool: sharedConnectionPool(options.kubeConfig),
    // #if webhooks
    ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }),
    // #endif
  });
  return { controller: container.get(DynamicController), metrics };
}
