import type { ContainerModule } from 'inversify';
import { containerModule } from '@protean/core/internal';
import { TOKENS, type WatchCoordinatorDeps, type WatchCoordinatorFactory } from '@protean/core';
import { IndexedWatchCoordinator, type IndexedWatchCoordinatorOptions } from './IndexedWatchCoordinator.js';

/**
 * Binds `TOKENS.watchCoordinatorFactory` to a factory building a
 * {@link IndexedWatchCoordinator} from the controller's watch manager, enqueue
 * function and logger.
 *
 * Easy to get wrong: the token holds a factory, not a coordinator: the
 * controller calls it once its watch manager and queue exist. To plug in another
 * coordinator, rebind the token after loading this module:
 * `container.rebind(TOKENS.watchCoordinatorFactory).toConstantValue((deps) => new MyCoordinator(deps))`.
 */
export function coordinatorModule(coordinatorOptions: IndexedWatchCoordinatorOptions = {}): ContainerModule {
  const factory: WatchCoordinatorFactory = (deps: WatchCoordinatorDeps) =>
    new IndexedWatchCoordinator(deps.watchManager, deps.enqueue, deps.logger, coordinatorOptions);
  return containerModule((options) => {
    options.bind(TOKENS.watchCoordinatorFactory).toConstantValue(factory);
  });
}
