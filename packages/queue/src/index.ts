export { BasicWorkQueue, type BasicWorkQueueOptions } from './BasicWorkQueue.js';
export { BucketRateLimiter } from './BucketRateLimiter.js';
export { controllerRateLimiter, defaultControllerRateLimiter } from './controllerRateLimiter.js';
export { createFairWorkQueueFactory, type FairWorkQueueFactoryDeps, type FairWorkQueueOptions } from './createFairWorkQueueFactory.js';
export { createPriorityWorkQueueFactory, type PriorityWorkQueueFactoryDeps } from './createPriorityWorkQueueFactory.js';
export { createWorkQueueFactory, type WorkQueueFactoryDeps } from './createWorkQueueFactory.js';
export { DelayingWorkQueue, type DelayingWorkQueueOptions } from './DelayingWorkQueue.js';
export { FairRateLimitingQueue, type FairRateLimitingQueueOptions } from './FairRateLimitingQueue.js';
export { fairQueueModule, type FairQueueModuleOptions } from './fairQueueModule.js';
export { gvrGroup } from './gvrGroup.js';
export { ItemExponentialFailureRateLimiter } from './ItemExponentialFailureRateLimiter.js';
export type { KeyFunc } from './KeyFunc.js';
export { MaxOfRateLimiter } from './MaxOfRateLimiter.js';
export { QueueArgumentError } from './QueueArgumentError.js';
export { PriorityQueueStore, type PriorityQueueStoreOptions } from './PriorityQueueStore.js';
export { priorityQueueModule, type PriorityQueueModuleOptions } from './priorityQueueModule.js';
export { PriorityRateLimitingQueue, type PriorityRateLimitingQueueOptions } from './PriorityRateLimitingQueue.js';
export { queueModule, type QueueModuleOptions } from './queueModule.js';
export type { QueuedItem, QueueStore, QueueStoreFactory } from './QueueStore.js';
export { RateLimitingWorkQueue, type RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';
export { type GroupFunc, RoundRobinQueueStore } from './RoundRobinQueueStore.js';
export {
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_SOURCE_PRIORITIES,
  QUEUE_PRIORITIES,
  type QueuePriority,
  type SourcePriorities,
} from './sourcePriorities.js';
