export { Backoff, type BackoffOptions } from './Backoff.js';
export { Informer, type InformerListener, type InformerOptions, runInformer } from './Informer.js';
export { KubernetesListWatch } from './KubernetesListWatch.js';
export {
  type InformerConnectionMode,
  type InformerSettings,
  type KubernetesInformerOptions,
  LIST_ACCEPT,
  resolveInformerSettings,
  type StreamingListMode,
  WATCH_ACCEPT,
} from './KubernetesInformerOptions.js';
export { KubernetesInformerSource, type KubernetesInformerSourceOptions } from './KubernetesInformerSource.js';
export { KindAvailability, type KindAvailabilityOptions } from './KindAvailability.js';
export { ServerReadiness, type ServerReadinessOptions } from './ServerReadiness.js';
export { KubernetesRequestError, type KubeStatus, type RequestVerb } from './KubernetesRequestError.js';
export { resourcePath } from './resourcePath.js';
export { StreamingListSupport } from './StreamingListSupport.js';
export { ListLimiter } from './ListLimiter.js';
export { toWatchEvent } from './toWatchEvent.js';
export { LAST_APPLIED_ANNOTATION, trimMetadata } from './trimMetadata.js';
export { ResourceNotAllowedError, WatchError, type WatchErrorReason } from './WatchError.js';
export { InformerWatchManager } from './InformerWatchManager.js';
export { type InformerWatchManagerOptions } from './InformerWatchManagerOptions.js';
export { watchManagerModule, type WatchManagerModuleOptions } from './watchManagerModule.js';
export type { RetryPolicyOptions } from './RetryPolicy.js';
export { type GvrPattern, ResourceAllowList } from './ResourceAllowList.js';
