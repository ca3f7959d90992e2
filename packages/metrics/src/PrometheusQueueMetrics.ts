import type { QueueMetricsProvider, CounterMetric, GaugeMetric, HistogramMetric, SettableGaugeMetric } from '@protean/core';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

// client-go's workqueue buckets: 10ns .. 10s, factor 10.
const durationBuckets = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

/**
 * client-go's `workqueue_*` metrics on a prom-client registry, labelled by
 * queue `name`. Bind it to `TOKENS.queueMetricsProvider` (the metrics module
 * does) so every named queue the controller builds reports through it.
 */
export class PrometheusQueueMetrics implements QueueMetricsProvider {
  private readonly depth: Gauge<'name'>;
  private readonly adds: Counter<'name'>;
  private readonly latency: Histogram<'name'>;
  private readonly workDuration: Histogram<'name'>;
  private readonly unfinished: Gauge<'name'>;
  private readonly longestRunning: Gauge<'name'>;
  private readonly retries: Counter<'name'>;
  private readonly depthByPriority: Gauge<'name' | 'priority'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers });
    this.adds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    this.latency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'],
      buckets: durationBuckets,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name'],
      buckets: durationBuckets,
      registers,
    });
    this.unfinished = new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: 'How many seconds of work has been done that is in progress and has not been observed by work_duration',
      labelNames: ['name'],
      registers,
    });
    this.longestRunning = new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name'],
      registers,
    });
    this.retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    this.depthByPriority = new Gauge({
      name: 'workqueue_depth_by_priority',
      help: 'Current depth of a priority workqueue per priority (high, normal, low)',
      labelNames: ['name', 'priority'],
      registers,
    });
  }

  newDepthMetric(name: string): GaugeMetric {
    const child = this.depth.labels(name);
    child.set(0);
    return { inc: () => child.inc(), dec: () => child.dec() };
  }

  newAddsMetric(name: string): CounterMetric {
    const child = this.adds.labels(name);
    return { inc: () => child.inc() };
  }

  newLatencyMetric(name: string): HistogramMetric {
    return this.latency.labels(name);
  }

  newWorkDurationMetric(name: string): HistogramMetric {
    return this.workDuration.labels(name);
  }

  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    return this.unfinished.labels(name);
  }

  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    return this.longestRunning.labels(name);
  }

  newRetriesMetric(name: string): CounterMetric {
    const child = this.retries.labels(name);
    return { inc: () => child.inc() };
  }

  /** The depth of one priority of a priority queue (`@protean/queue`'s `PriorityRateLimitingQueue`). */
  newDepthByPriorityMetric(name: string, priority: string): GaugeMetric {
    const child = this.depthByPriority.labels(name, priority);
    child.set(0);
    return { inc: () => child.inc(), dec: () => child.dec() };
  }
}
