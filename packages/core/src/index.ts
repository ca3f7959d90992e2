export { apiStatusOf, errorMessage, summarizeError } from './apiStatus.js';
export { type Clock, realClock, type TimerHandle } from './clock.js';
export { sleepOrWake } from './clockWait.js';
export { type Config, ConfigError } from './config.js';
export {
  type DeclaredWatch,
  type DelayingQueue,
  type EnqueueSource,
  type InstancePass,
  type InstanceWatcher,
  type Fencing,
  type Leadership,
  type PassGate,
  type QueueGetResult,
  type RateLimiter,
  type RateLimitingQueue,
  type RateLimits,
  type Validity,
  type WatchCoordinator,
  type WatchCoordinatorDeps,
  type WatchCoordinatorFactory,
  type WatchHealth,
  type WatchManager,
  type WatchManagerDeps,
  type WatchManagerFactory,
  type WatchRequest,
  type WorkQueue,
  type WorkQueueFactory,
  type WorkQueueOptions,
  type InstanceWatches,
  type RouteExplanation,
  type RouteQuery,
  type WatchMiss,
  type WatchMissField,
  type WatchRoute,
} from './contracts/index.js';
export { type ControllerObserver, type ReconcileOutcome } from './controller/ControllerObserver.js';
export { ControllerStateError } from './controller/ControllerStateError.js';
export { type ControllerStatus, type ExplainTarget, type Explanation } from './controller/ControllerStatus.js';
export type { DynamicControllerOptions } from './controller/DynamicControllerOptions.js';
export { ExplainError } from './controller/ExplainError.js';
export { ObjectNotCachedError } from './controller/ObjectNotCachedError.js';
export { ParentSyncError } from './controller/ParentSyncError.js';
export type { CacheRequest, RegisterOptions } from './controller/RegisterOptions.js';
export { PassCancelledError } from './controller/PassCancelledError.js';
export { ReconcileTimeoutError } from './controller/ReconcileTimeoutError.js';
export { ShutdownTimeoutError } from './controller/ShutdownTimeoutError.js';
export { workItemKey } from './controller/workItemKey.js';
export { coreModule } from './coreModule.js';
export { PASS_SPAN_NAME } from './controller/PassTrace.js';
export { type PassTrigger } from './tracing/PassTrigger.js';
export { ProteanTracing, tracing } from './tracing/tracing.js';
export { DynamicController } from './controller/DynamicController.js';
export { type EventHandler, type EventType, type WatchEvent, type EnqueueFunc } from './events.js';
export { forwardEveryMember } from './everyMember.js';
export { assertStillValid } from './fence.js';
export { FencingRequiredError } from './FencingRequiredError.js';
export { noteWrite } from './passWrites.js';
export { type GroupVersionResource, gvrEquals, gvrKey, type NamespacedName, namespacedNameKey, type ObjectIdentifiers } from './gvr.js';
export { InvalidGroupVersionResourceError, InvalidObjectNameError } from './gvrValidation.js';
export { type CachedListOptions, type Handler, type ReconcileContext } from './handler.js';
export {
  type CachedObject,
  DeletedFinalStateUnknown,
  type InformerCache,
  type InformerSource,
  type ListWatch,
  type ListWatchOptions,
  type ListWatchSink,
  type IndexFunc,
  type ObjectCacheOptions,
  type ObjectMeta,
  type OwnerReference,
  type PartialObjectMetadata,
  type ResourceEventHandler,
  type ListWatchHealth,
} from './informer.js';
export { type InformerHealth, type InformerFailure } from './informerHealth.js';
export { isNotFound } from './isNotFound.js';
export { KubeApiError } from './KubeApiError.js';
export { KindNotServedError, KindUnavailableError, WatchForbiddenError } from './KindUnavailableError.js';
export { LeaseExpiredError } from './LeaseExpiredError.js';
export { createLogger, type Logger, silentLogger } from './logger.js';
export { LogSummarizer, type LogSummarizerOptions } from './LogSummarizer.js';
export {
  type QueueMetricsProvider,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type SettableGaugeMetric,
} from './queueMetrics.js';
export { NoRequeue, requeue, RequeueNeeded, RequeueNeededAfter, RequeueWhen } from './requeue.js';
export { StaleReadError } from './StaleReadError.js';
export {
  Everything,
  type LabelSelector,
  type LabelSelectorRequirement,
  Nothing,
  parseSelector,
  type Selector,
  SelectorError,
  selectorFromLabelSelector,
} from './selector/index.js';
export { TOKENS } from './tokens.js';
