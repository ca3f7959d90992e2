import { TOKENS, type Clock, type QueueMetricsProvider, type WorkQueueFactory } from '@protean/core';
import type { ContainerModule } from 'inversify';
import { containerModule } from '@protean/core/internal';

/** What a queue factory gets from the container. */
export interface QueueFactoryContext {
  readonly clock: Clock;
  readonly metricsProvider: QueueMetricsProvider;
}

/**
 * A module that binds `TOKENS.workQueueFactory` to `build(clock,
 * metricsProvider)` of the container, as a singleton, replacing any factory
 * already bound: the shape of every queue plugin module.
 */
export function replaceQueueFactory(build: (context: QueueFactoryContext) => WorkQueueFactory): ContainerModule {
  return containerModule((container) => {
    // Unbind + bind rather than rebind: a binding made through this module's
    // own `bind` belongs to the module, so unloading the module removes it.
    if (container.isBound(TOKENS.workQueueFactory)) container.unbind(TOKENS.workQueueFactory);
    container
      .bind(TOKENS.workQueueFactory)
      .toDynamicValue((context) => build({ clock: context.get(TOKENS.clock), metricsProvider: context.get(TOKENS.queueMetricsProvider) }))
      .inSingletonScope();
  });
}
