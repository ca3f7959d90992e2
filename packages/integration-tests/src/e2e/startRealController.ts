import type { KubeConfig } from '@kubernetes/client-node';
import {
  coreModule,
  DynamicController,
  silentLogger,
  TOKENS,
  type Config,
  type EventHandler,
  type WatchCoordinator,
  type Logger,
  type WatchManager,
  type WatchManagerFactory,
} from '@protean/core';
import { coordinatorModule } from '@protean/coordinator';
import { queueModule } from '@protean/queue';
import { watchManagerModule, type KubernetesInformerSourceOptions } from '@protean/watch-manager';
import { Container } from 'inversify';
import { ObservedInformerSource } from './ObservedInformerSource.js';

/** Controller settings for real-cluster tests: small retry delays, no resync, rate limits out of the way. */
export const E2E_CONFIG: Readonly<Partial<Config>> = Object.freeze({
  workers: 2,
  resyncPeriodMs: 0,
  queueMaxRetries: 10,
  minRetryDelayMs: 20,
  maxRetryDelayMs: 1_000,
  rateLimit: 1_000,
  burstLimit: 1_000,
  queueShutdownTimeoutMs: 10_000,
});

/** Informer retry delays for real-cluster tests: reconnects within a second instead of up to 30 s. */
export const E2E_INFORMER: Readonly<Partial<KubernetesInformerSourceOptions>> = Object.freeze({
  backoff: { initialMs: 100, maxMs: 1_000 },
});

/** Options of {@link startRealController}. */
export interface RealControllerOptions {
  /** Credentials of the controller's informers (handlers bring their own clients). */
  readonly kubeConfig: KubeConfig;
  /** Default: silent. */
  readonly logger?: Logger;
  /** Merged over {@link E2E_CONFIG}. */
  readonly config?: Partial<Config>;
  /** Merged over {@link E2E_INFORMER}. */
  readonly informer?: Partial<Omit<KubernetesInformerSourceOptions, 'kubeConfig'>>;
  /** Runs on the composed container before the controller is built (e.g. `instrumentContainer`). */
  readonly configure?: (container: Container) => void;
}

/** A started DynamicController with the layers it built, for assertions. */
export interface RealController {
  readonly controller: DynamicController;
  /** The watch manager the controller built (the module's InformerWatchManager). */
  readonly watchManager: WatchManager;
  readonly watchCoordinator: WatchCoordinator;
  /** The module's informer source, wrapped to count informers and record their errors. */
  readonly source: ObservedInformerSource;
  /** Calls `listener` with every event the informers deliver, before the controller routes it; returns the unsubscribe. */
  onEvent(listener: EventHandler): () => void;
  /** Aborts the controller and waits for its shutdown. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Composes a DynamicController the way an application does
 * (`coreModule`, `queueModule`, `watchManagerModule({ kubeConfig })`,
 * `coordinatorModule`, `container.get(DynamicController)`) and starts it.
 * Two tokens are wrapped, not replaced: the informer source (to observe
 * it) and the watch manager factory (to capture the watch manager it
 * builds and tap the events it delivers).
 *
 * Easy to get wrong: `stop()` it before stopping the API server, or the
 * informers log connection failures while the test process winds down.
 */
export function startRealController(options: RealControllerOptions): RealController {
  const container = new Container();
  container.load(
    coreModule({ ...E2E_CONFIG, ...options.config }, options.logger ?? silentLogger()),
    queueModule(),
    watchManagerModule({ ...E2E_INFORMER, ...options.informer, kubeConfig: options.kubeConfig }),
    coordinatorModule(),
  );
  let source: ObservedInformerSource | undefined;
  let watchManager: WatchManager | undefined;
  const listeners = new Set<EventHandler>();
  container.onActivation(TOKENS.informerSource, (_ctx, inner) => (source = new ObservedInformerSource(inner)));
  container.onActivation(
    TOKENS.watchManagerFactory,
    (_ctx, factory): WatchManagerFactory =>
      (deps) =>
        (watchManager = factory({
          ...deps,
          onEvent: (event) => {
            for (const listener of [...listeners]) listener(event);
            deps.onEvent(event);
          },
        })),
  );

  options.configure?.(container);
  const controller = container.get(DynamicController);
  if (source === undefined || watchManager === undefined) {
    throw new Error('startRealController: the controller did not build its informer source and watch manager');
  }
  const abort = new AbortController();
  const running = controller.start(abort.signal);
  // Reported by stop(); never an unhandled rejection in between.
  running.catch(() => {});
  return {
    controller,
    watchManager,
    watchCoordinator: controller.watchCoordinator(),
    source,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      abort.abort();
      await running;
    },
  };
}
