import {
  type QueueMetricsProvider,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type SettableGaugeMetric,
} from '@protean/core';
import { noopQueueMetricsProvider } from '@protean/core/internal';

/**
 * The metric objects of one named queue. Built only when a queue has both a
 * name and a real provider (client-go's rule), so an unmetered queue pays
 * one `undefined` check per operation and never reads the clock for metrics.
 */
export interface QueueMetrics {
  readonly depth: GaugeMetric;
  readonly adds: CounterMetric;
  readonly latency: HistogramMetric;
  readonly workDuration: HistogramMetric;
  readonly unfinishedWorkSeconds: SettableGaugeMetric;
  readonly longestRunningProcessorSeconds: SettableGaugeMetric;
}

/** Whether a queue called `name` reports to `provider` at all. */
export function metricsEnabled(name: string, provider: QueueMetricsProvider): boolean {
  return name !== '' && provider !== noopQueueMetricsProvider;
}

/** Creates the queue's metrics, or `undefined` when it is not metered. */
export function createQueueMetrics(name: string, provider: QueueMetricsProvider): QueueMetrics | undefined {
  if (!metricsEnabled(name, provider)) return undefined;
  return {
    depth: provider.newDepthMetric(name),
    adds: provider.newAddsMetric(name),
    latency: provider.newLatencyMetric(name),
    workDuration: provider.newWorkDurationMetric(name),
    unfinishedWorkSeconds: provider.newUnfinishedWorkSecondsMetric(name),
    longestRunningProcessorSeconds: provider.newLongestRunningProcessorSecondsMetric(name),
  };
}
