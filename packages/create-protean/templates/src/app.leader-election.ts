// The controller, composed: what src/main.ts runs in a Pod and src/permissions.test.ts runs on the in-memory API server.
import { randomBytes } from 'node:crypto';
import type { DynamicController, Logger } from '@protean/core';
import { leaderElectionModule } from '@protean/leader-election';
import type { ProteanMetrics, ReadinessCheck } from '@protean/metrics';
import type { KubeConfigLike } from '@protean/transport';
// #if webhooks
import { createWebhooks, PARENT_ADMISSION, type WebhookServing } from './admission.js';
// #endif
import { composeController } from './composeController.js';
import { createHandler } from './controller.js';
import { registerWhenAllowed } from './register.js';
import { CONTROLLER_NAME, PARENT } from './names.js';

/** Options of {@link createApp}. */
export interface AppOptions {
  readonly kubeConfig: KubeConfigLike;
  readonly logger: Logger;
  /** Where the Lease lives: the Pod's namespace. */
  readonly namespace: string;
  /** The start of this replica's identity (the Pod's name); a random suffix makes it unique per process. */
  readonly podName: string;
  readonly resyncPeriodMs?: number;
  /** Unused here (nothing to ask the server before the controller starts); the sharding layout's start-up requests stop on it. */
  readonly signal?: AbortSignal;
  // #if webhooks
  /** Where the webhook server listens and how kube-apiserver reaches it (default: port 9443, through the Service). */
  readonly webhooks?: WebhookServing;
  // #endif
}

/** The composed controller, its metrics and readiness, and how to run it. */
export interface App {
  readonly controller: DynamicController;
  readonly metrics: ProteanMetrics;
  /** What `metrics.serve({ readiness })` adds to /readyz (nothing more for this layout). */
  readonly readiness: readonly ReadinessCheck[];
  readonly identity: string;
  /**
   * A standby until it holds the lease, then reconciles; on abort it drains its passes and releases the
   * lease. Resolves when stopped.
   */
  run(signal: AbortSignal): Promise<void>;
}

/** Two or more replicas, one of them leading (a coordination.k8s.io Lease in `namespace`), the others a warm standby. */
export function createApp(options: AppOptions): Promise<App> {
  const { kubeConfig, logger } = options;
  // Unique per process: a restarted container keeps its Pod name.
  const identity = `${options.podName}_${randomBytes(4).toString('hex')}`;
  // #if webhooks
  // Every replica serves the webhooks; the leader writes the webhook configurations.
  const webhooks = createWebhooks({
    kubeConfig,
    logger,
    namespace: options.namespace,
    writes: () => controller.isLeading(),
    ...options.webhooks,
  });
  // #endif
  const { controller, metrics } = composeController({
    kubeConfig,
    logger,
    config: options.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: options.resyncPeriodMs },
    modules: [leaderElectionModule({ kubeConfig, namespace: options.namespace, leaseName: CONTROLLER_NAME, identity })],
    // #if webhooks
    webhooks: webhooks.server,
    // #endif
  });
  return Promise.resolve({
    controller,
    metrics,
    readiness: [],
    identity,
    run: async (signal) => {
      // The controller stops on `signal`, or when registering fails for good (the error is thrown after it stopped).
      const failed = new AbortController();
      const stop = AbortSignal.any([signal, failed.signal]);
      // Closes the handler's client once the controller has stopped (its passes drained).
      const stopped = new AbortController();
      const running = controller.start(stop);
      try {
        const handler = createHandler({ kubeConfig, controller, logger, signal: stopped.signal });
        // #if webhooks
        // The kind and its admission together: served, registered, then written into the webhook configurations.
        const admitting = await webhooks.start(controller, stop);
        await registerWhenAllowed(admitting, PARENT.gvr, handler, { signal: stop, logger, register: { admission: PARENT_ADMISSION } });
        // #endif
        // #if !webhooks
        await registerWhenAllowed(controller, PARENT.gvr, handler, { signal: stop, logger });
        // #endif
        await running;
      } catch (err) {
        failed.abort(err);
        await running.catch(() => {});
        throw err;
      } finally {
        stopped.abort();
      }
    },
  });
}
