import { ContainerModule } from 'inversify';
import { TOKENS, type EventRouterDeps, type EventRouterFactory } from '@protean/core';
import { WatchCoordinator, type WatchCoordinatorOptions } from './WatchCoordinator.js';

/**
 * Binds `TOKENS.eventRouterFactory` to a factory building a
 * {@link WatchCoordinator} from the controller's watch registry, enqueue
 * function and logger.
 *
 * Easy to get wrong: the token holds a factory, not a router: the
 * controller calls it once its registry and queue exist. To plug in another
 * router, rebind the token after loading this module:
 * `container.rebind(TOKENS.eventRouterFactory).toConstantValue((deps) => myRouter)`.
 */
export function coordinatorModule(coordinatorOptions: WatchCoordinatorOptions = {}): ContainerModule {
  const factory: EventRouterFactory = (deps: EventRouterDeps) =>
    new WatchCoordinator(deps.watches, deps.enqueue, deps.logger, coordinatorOptions);
  return new ContainerModule((options) => {
    options.bind(TOKENS.eventRouterFactory).toConstantValue(factory);
  });
}
