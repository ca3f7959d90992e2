export { type ControllerGaugeSources, ControllerMetrics } from './ControllerMetrics.js';
export { type InformerHealthOptions, InformerHealthRules, type InformerStatus } from './InformerHealthRules.js';
export { instrumentContainer, type InstrumentOptions, type ProteanMetrics } from './instrumentContainer.js';
export { MetricsServer, type MetricsServerOptions, type ReadinessCheck } from './MetricsServer.js';
export { PrometheusQueueMetrics } from './PrometheusQueueMetrics.js';
export {
  instrumentSharding,
  type ShardCacheSource,
  type ShardMembershipSource,
  type ShardMetricsOptions,
  type ShardRangeView,
  shardReadiness,
  type ShardStatusView,
} from './ShardMetrics.js';
export {
  instrumentWebhooks,
  type WebhookReviewView,
  type WebhookRouteView,
  type WebhookServerSource,
  type WebhookStatusView,
} from './WebhookMetrics.js';
export { type StuckWorkersOptions, StuckWorkersRule, type StuckWorkersVerdict } from './StuckWorkersRule.js';
export { type ExplainQuery, ExplainQueryError, type StatusPageSource } from './statusPage/index.js';
export {
  type AccessLogView,
  type ConnectionPoolView,
  type ObservedAccess,
  type ObservedAccessRecord,
} from './permissions/AccessLogView.js';
export { type PermissionRow, PermissionsMonitor, type PermissionsStatus } from './permissions/PermissionsMonitor.js';
export type { RecentPass, RecentPassesView, RecentPassSpan, RecentPassTrigger } from './tracing/RecentPass.js';
export {
  type RecentPassesRecorderOptions,
  RecentPassesRecorder,
  type RecordedSpan,
  type RecordedSpanContext,
  type SpanTime,
  type StartedSpan,
} from './tracing/RecentPassesRecorder.js';
