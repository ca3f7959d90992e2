export { coordinatorModule } from './coordinatorModule.js';
export { InstanceRemovedError } from './InstanceRemovedError.js';
export { IndexedWatchCoordinator, type IndexedWatchCoordinatorOptions } from './IndexedWatchCoordinator.js';
export { WatchRequestError } from './WatchRequestError.js';
export { WatchUnavailableError } from './WatchUnavailableError.js';
