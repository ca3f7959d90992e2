export * from './ControllerMetrics.js';
export * from './InformerHealthRules.js';
export * from './instrumentContainer.js';
export * from './MetricsServer.js';
export * from './PrometheusQueueMetrics.js';
export * from './ShardMetrics.js';
export * from './StuckWorkersRule.js';
export * from './statusPage/index.js';
