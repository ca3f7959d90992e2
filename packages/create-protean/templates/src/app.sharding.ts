// The controller, composed: what src/main.ts runs in a Pod and src/permissions.test.ts runs on the in-memory API server.
import { randomBytes } from 'node:crypto';
import { KubeClient } from '@protean/client';
import type { DynamicController, Logger } from '@protean/core';
import { instrumentSharding, shardReadiness, type ProteanMetrics, type ReadinessCheck } from '@protean/metrics';
import {
  applyShardChange,
  detectShardSelectorSupport,
  KubeMemberLeaseClient,
  kubeShardInformerSource,
  ShardGate,
  ShardMembership,
} from '@protean/sharding';
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
  /** Where the member Leases live: the Pod's namespace. */
  readonly namespace: string;
  /** The start of this replica's identity (the Pod's name); a random suffix makes it unique per process. */
  readonly podName: string;
  readonly resyncPeriodMs?: number;
  /** Stops the start-up requests (detection, the namespace list) too. */
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
  /** What `metrics.serve({ readiness })` adds to /readyz: ready once this replica holds its share. */
  readonly readiness: readonly ReadinessCheck[];
  readonly identity: string;
  /**
   * Reconciles the parents of this replica's share of the namespaces; on abort it gives every range up,
   * waits for the drain and releases its member lease, so the others take its namespaces over at once.
   */
  run(signal: AbortSignal): Promise<void>;
}

/** Thrown when a step the controller cannot start without fails (a 403, say); names the step. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
  constructor(step: string, cause: unknown) {
    super(`${step} failed: the controller cannot start (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
  }
}

async function required<T>(step: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw new StartupError(step, err);
  }
}

/** Every replica reconciles the parents of its share of the namespaces (one member Lease per replica in `namespace`). */
export async function createApp(options: AppOptions): Promise<App> {
  const { kubeConfig, logger, signal } = options;
  const identity = `${options.podName}_${randomBytes(4).toString('hex')}`;
  const key = 'namespace'; // a parent and its ConfigMaps share a namespace, so they land in the same share
  // The split balances the namespaces present at start (listed once: it moves only when members come or go).
  const { mode } = await required('detecting shardSelector support', () =>
    detectShardSelectorSupport(kubeConfig, { logger, ...(signal === undefined ? {} : { signal }) }),
  );
  const client = new KubeClient({ kubeConfig });
  const namespaces = (
    await required('listing the namespaces (the shard keys)', () =>
      client.list({ group: '', version: 'v1', resource: 'namespaces' }, signal === undefined ? {} : { signal }),
    ).finally(() => client.close())
  ).map((ns) => ns.metadata.name);

  const source = kubeShardInformerSource({ kubeConfig, key, ranges: [], mode, logger });
  const membership = new ShardMembership({
    client: new KubeMemberLeaseClient(kubeConfig),
    namespace: options.namespace,
    group: CONTROLLER_NAME,
    identity,
    keys: () => namespaces,
    logger,
  });
  const gate = new ShardGate({ key, validity: membership.validity });
  // #if webhooks
  // Every replica serves the webhooks; the member holding the start of the hash space writes the webhook configurations.
  const webhooks = createWebhooks({
    kubeConfig,
    logger,
    namespace: options.namespace,
    writes: () => membership.status().ranges.some((r) => r.start === 0n),
    ...options.webhooks,
  });
  // #endif
  const { controller, metrics } = composeController({
    kubeConfig,
    logger,
    informerSource: source,
    config: options.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: options.resyncPeriodMs },
    // #if webhooks
    webhooks: webhooks.server,
    // #endif
  });
  instrumentSharding(metrics.registry, membership, { mode, cache: source });
  return {
    controller,
    metrics,
    readiness: [shardReadiness(membership)],
    identity,
    run: async (stopSignal) => {
      // The controller stops on `stopSignal`, or when registering fails for good (the error is thrown after it stopped).
      const failed = new AbortController();
      const stop = AbortSignal.any([stopSignal, failed.signal]);
      // Closes the handler's client once the controller has stopped (its passes drained).
      const stopped = new AbortController();
      const running = controller.start(stop);
      try {
        const handler = gate.wrap(createHandler({ kubeConfig, controller, logger, signal: stopped.signal }));
        // #if webhooks
        // The kind and its admission together: served, registered, then written into the webhook configurations.
        const admitting = await webhooks.start(controller, stop);
        await registerWhenAllowed(admitting, PARENT.gvr, handler, { signal: stop, logger, register: { admission: PARENT_ADMISSION } });
        // #endif
        // #if !webhooks
        await registerWhenAllowed(controller, PARENT.gvr, handler, { signal: stop, logger });
        // #endif
        // Gate first (stop taking, drain), then the informers.
        await Promise.all([membership.run(stop, applyShardChange({ gate, source })), running]);
      } catch (err) {
        failed.abort(err);
        await running.catch(() => {});
        throw err;
      } finally {
        stopped.abort();
      }
    },
  };
}
