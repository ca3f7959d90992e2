export { instrumentContainer, type InstrumentOptions, type ProteanMetrics } from './instrumentContainer.js';
export { MetricsServer, type MetricsServerOptions, type ReadinessCheck } from './MetricsServer.js';
export { PrometheusQueueMetrics } from './PrometheusQueueMetrics.js';
export { instrumentSharding, shardReadiness } from './ShardMetrics.js';
export { instrumentWebhooks, type WebhookServerSource } from './WebhookMetrics.js';
export { ExplainQueryError, type StatusPageSource } from './statusPage/index.js';
export { type ConnectionPoolView } from './permissions/AccessLogView.js';
export { RecentPassesRecorder } from './tracing/RecentPassesRecorder.js';
