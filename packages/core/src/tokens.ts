import type { ServiceIdentifier } from 'inversify';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Leadership, PassGate, WatchCoordinatorFactory, WatchManagerFactory, WorkQueueFactory } from './contracts/index.js';
import type { ControllerObserver } from './controller/ControllerObserver.js';
import type { InformerSource } from './informer.js';
import type { Logger } from './logger.js';
import type { QueueMetricsProvider } from './queueMetrics.js';

function token<T>(name: string): ServiceIdentifier<T> {
  // Symbol.for keeps tokens equal across duplicate installs of @protean/core.
  return Symbol.for(`@protean/core:${name}`) as ServiceIdentifier<T>;
}

/**
 * Typed Inversify service identifiers for every swap point. Rebind one (before
 * the first `container.get`) to replace a layer:
 * `container.rebind(TOKENS.informerSource).toConstantValue(mySource)`.
 */
export const TOKENS = Object.freeze({
  config: token<Config>('Config'),
  logger: token<Logger>('Logger'),
  clock: token<Clock>('Clock'),
  informerSource: token<InformerSource>('InformerSource'),
  workQueueFactory: token<WorkQueueFactory>('WorkQueueFactory'),
  queueMetricsProvider: token<QueueMetricsProvider>('QueueMetricsProvider'),
  watchManagerFactory: token<WatchManagerFactory>('WatchManagerFactory'),
  watchCoordinatorFactory: token<WatchCoordinatorFactory>('WatchCoordinatorFactory'),
  /** Optional: a DynamicController without it uses `noopControllerObserver`. */
  controllerObserver: token<ControllerObserver>('ControllerObserver'),
  /** Optional: a DynamicController without it always leads (one replica); with it, its workers run only while it leads. */
  leadership: token<Leadership>('Leadership'),
  /** Optional: with it, every handler registered is wrapped by the gate, and the gate runs from `start` (a shard membership). */
  passGate: token<PassGate>('PassGate'),
});
