// `@protean/core/internal`: the names only the other `@protean/*` packages
// use (the signal registries' binders and lookups, clock helpers, request
// validation, tracing of routed events, the status records only the metrics
// package reads, the pieces of an API error's answer). Not part of core's public API: no
// semver promise, and no API report (scripts/api-report.mjs reports `.`
// only). A name a user of Protean needs belongs in `index.ts` instead.
export { apiStatusChain } from './apiStatus.js';
export { apiWarningCount, countApiWarnings } from './apiWarnings.js';
export { markChecked, wasChecked } from './checkedSettings.js';
export { MAX_TIMER_DELAY_MS } from './clock.js';
export { holdMemoryReducer, memoryReducerHolders } from './memoryReducer.js';
export { deadlineSignal, Waker } from './clockWait.js';
export { containerModule } from './containerModule.js';
export { passCancellationOf } from './controller/PassCancelledError.js';
export { fenceSignal, isFenced, noteUnfencedWrite, type UnfencedWrite, unfencedWriteCount } from './fence.js';
export { parseGvrKey, parseNamespacedNameKey } from './gvr.js';
export { validateGroupVersionResource, validateNamespace, validateObjectName } from './gvrValidation.js';
export { bindPassReads, noteRead, readVersionOf } from './passReads.js';
export { bindWriteRecorder, type WriteRecorder } from './passWrites.js';
export { noopQueueMetricsProvider } from './queueMetrics.js';
export { objectTransformOf } from './stripObject.js';
export { parseStatusBody, retryAfterMsOf, type StatusBody } from './statusBody.js';
export { recordEventSpan, triggerEventOf, EVENT_SPAN_NAME } from './tracing/eventSpan.js';
export { UNSERVED_RESOURCE_HINT } from './unservedResourceHint.js';
export { validateLabelKey, validateLabelValue, selectorMismatch } from './selector/index.js';
export { type InFlightPass, type InformerStatusEntry, type QueueStatus } from './controller/ControllerStatus.js';
export { type TraceAttributes, type TraceSpan } from './tracing/otelApi.js';
export { apiErrorFieldsOf, type ApiErrorResponse, type RequestDescription } from './KubeApiError.js';
export { kindUnavailableOf } from './KindUnavailableError.js';
export { networkErrorCause } from './networkErrorCause.js';
