import type { ContainerModule } from 'inversify';
import { realClock } from './clock.js';
import { resolveConfig, type Config } from './config.js';
import { containerModule } from './containerModule.js';
import { noopControllerObserver } from './controller/ControllerObserver.js';
import { DynamicController } from './controller/DynamicController.js';
import { createLogger, type Logger } from './logger.js';
import { noopQueueMetricsProvider } from './queueMetrics.js';
import { TOKENS } from './tokens.js';

/**
 * Binds the controller's configuration (validated, defaults filled in), its
 * logger, the real clock, a no-op queue metrics provider, a no-op controller
 * observer and `DynamicController` itself (singleton). Load it first; the
 * implementation modules build on these bindings, and `container.get(DynamicController)`
 * needs the queue, watch manager, informer source and watch coordinator bindings
 * they add.
 */
export function coreModule(config: Partial<Config> = {}, logger: Logger = createLogger()): ContainerModule {
  const resolved = resolveConfig(config);
  return containerModule((options) => {
    options.bind(TOKENS.config).toConstantValue(resolved);
    options.bind(TOKENS.logger).toConstantValue(logger);
    options.bind(TOKENS.clock).toConstantValue(realClock);
    options.bind(TOKENS.queueMetricsProvider).toConstantValue(noopQueueMetricsProvider);
    options.bind(TOKENS.controllerObserver).toConstantValue(noopControllerObserver);
    // A factory with its tokens listed here, not decorators on the class, so
    // that importing DynamicController does not load Inversify.
    options
      .bind(DynamicController)
      .toResolvedValue(
        (...args: ConstructorParameters<typeof DynamicController>) => new DynamicController(...args),
        [
          TOKENS.config,
          TOKENS.logger,
          TOKENS.clock,
          TOKENS.informerSource,
          TOKENS.workQueueFactory,
          TOKENS.watchManagerFactory,
          TOKENS.watchCoordinatorFactory,
          { serviceIdentifier: TOKENS.controllerObserver, optional: true },
          { serviceIdentifier: TOKENS.leadership, optional: true },
          { serviceIdentifier: TOKENS.passGate, optional: true },
        ],
      )
      .inSingletonScope();
  });
}
