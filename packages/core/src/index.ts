export { type ApiStatus, apiStatusOf, errorMessage, summarizeError } from './apiStatus.js';
export { type Clock, realClock, type TimerHandle } from './clock.js';
export { sleepOrWake } from './clockWait.js';
export { type Config, ConfigError, defaultConfig, resolveConfig } from './config.js';
export {
  type CollectionDeclaredWatch,
  type DeclaredWatch,
  type DelayingQueue,
  type EnqueueSource,
  type InstancePass,
  type InstanceWatcher,
  type InstanceWatches,
  type Fencing,
  type Leadership,
  type PassGate,
  type ParentRouteWatch,
  type QueueGetResult,
  type RateLimiter,
  type RateLimitingQueue,
  type RateLimits,
  type RouteExplanation,
  type RouteQuery,
  type ScalarDeclaredWatch,
  type Validity,
  type WatchCoordinator,
  type WatchCoordinatorDeps,
  type WatchCoordinatorFactory,
  type WatchHealth,
  type WatchManager,
  type WatchManagerDeps,
  type WatchManagerFactory,
  type WatchMiss,
  type WatchMissField,
  type WatchRequest,
  type WatchRoute,
  type WorkQueue,
  type WorkQueueFactory,
  type WorkQueueOptions,
} from './contracts/index.js';
export { type ControllerObserver, type ReconcileOutcome } from './controller/ControllerObserver.js';
export { type ControllerState, ControllerStateError } from './controller/ControllerStateError.js';
export {
  type ControllerStatus,
  type ExplainTarget,
  type Explanation,
  type InFlightPass,
  type InformerStatusEntry,
  type ParentStatus,
  type QueueStatus,
  type RecentFailure,
} from './controller/ControllerStatus.js';
export type { DynamicControllerOptions } from './controller/DynamicControllerOptions.js';
export { ExplainError, type ExplainErrorReason } from './controller/ExplainError.js';
export { ObjectNotCachedError } from './controller/ObjectNotCachedError.js';
export { ParentSyncError } from './controller/ParentSyncError.js';
export type { CacheRequest, RegisterOptions } from './controller/RegisterOptions.js';
export { PassCancelledError, type PassCancelReason } from './controller/PassCancelledError.js';
export { ReconcileTimeoutError } from './controller/ReconcileTimeoutError.js';
export { ShutdownTimeoutError } from './controller/ShutdownTimeoutError.js';
export { workItemKey } from './controller/workItemKey.js';
export { coreModule } from './coreModule.js';
export { PASS_SPAN_NAME } from './controller/PassTrace.js';
export {
  type TraceAttributes,
  type TraceAttributeValue,
  type TraceLink,
  type TraceSpan,
  type TraceSpanContext,
} from './tracing/otelApi.js';
export { PASS_TRIGGER_LIMIT, type PassTrigger, type TriggerEvent } from './tracing/PassTrigger.js';
export { ProteanTracing, type SpanParent, type StartSpanOptions, tracing } from './tracing/tracing.js';
export { DynamicController } from './controller/DynamicController.js';
export { messageWithCauses, type SerializedError, serializeError } from './errorSerializer.js';
export { type EnqueueFunc, type EventHandler, type EventType, type WatchEvent } from './events.js';
export { type EveryMember, forwardEveryMember } from './everyMember.js';
export { assertStillValid, unfencedWriteCount } from './fence.js';
export { FencingRequiredError } from './FencingRequiredError.js';
export { noteWrite, type ObjectWrite } from './passWrites.js';
export { resourceVersionAtLeast } from './resourceVersionAtLeast.js';
export { stripObject } from './stripObject.js';
export { type GroupVersionResource, gvrEquals, gvrKey, type NamespacedName, namespacedNameKey, type ObjectIdentifiers } from './gvr.js';
export {
  type GroupVersionResourceField,
  InvalidGroupVersionResourceError,
  InvalidObjectNameError,
  type ObjectNameField,
} from './gvrValidation.js';
export { type CachedListOptions, type Handler, type ReconcileContext } from './handler.js';
export {
  type CachedObject,
  DeletedFinalStateUnknown,
  type InformerCache,
  type InformerSource,
  type ListWatch,
  type ListWatchHealth,
  type ListWatchOptions,
  type ListWatchSink,
  type IndexFunc,
  type ObjectCacheOptions,
  type ObjectMeta,
  type ObjectTransform,
  type OwnerReference,
  type PartialObjectMetadata,
  type ResourceEventHandler,
} from './informer.js';
export type { InformerFailure, InformerHealth } from './informerHealth.js';
export { isNotFound } from './isNotFound.js';
export { type ApiErrorResponse, KubeApiError, type KubeApiErrorFields, type RequestDescription } from './KubeApiError.js';
export {
  type KindRefusalDetails,
  KindNotServedError,
  KindUnavailableError,
  kindUnavailableOf,
  WatchForbiddenError,
} from './KindUnavailableError.js';
export { LeaseExpiredError } from './LeaseExpiredError.js';
export { createLogger, type Logger, silentLogger } from './logger.js';
export { LogSummarizer, type LogSummarizerLevel, type LogSummarizerOptions, type LogSummaryLineOptions } from './LogSummarizer.js';
export { networkErrorCause } from './networkErrorCause.js';
export {
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type QueueMetricsProvider,
  type SettableGaugeMetric,
} from './queueMetrics.js';
export { isRequeueError, NoRequeue, requeue, RequeueNeeded, RequeueNeededAfter, RequeueWhen } from './requeue.js';
export { StaleReadError } from './StaleReadError.js';
export type { StatusBody, StatusCause } from './statusBody.js';
export {
  Everything,
  type LabelSelector,
  type LabelSelectorOperator,
  type LabelSelectorRequirement,
  Nothing,
  parseSelector,
  type Requirement,
  type Selector,
  SelectorError,
  type SelectorErrorLocation,
  selectorFromLabelSelector,
  selectorMismatch,
  type SelectorMismatch,
  type SelectorOperator,
} from './selector/index.js';
export { TOKENS } from './tokens.js';
