/** A counter as client-go's workqueue metrics see it. */
export interface CounterMetric {
  inc(): void;
}
/** A gauge that moves by steps. */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}
/** A gauge set to absolute values. */
export interface SettableGaugeMetric {
  set(value: number): void;
}
/** A histogram of seconds. */
export interface HistogramMetric {
  observe(value: number): void;
}

/**
 * Creates the per-queue metrics of client-go's `workqueue` (depth, adds,
 * queue latency, work duration, unfinished work, longest running processor,
 * retries). Latencies and durations are observed in seconds, as client-go
 * does. A Prometheus adapter implements this with `workqueue_*` names.
 */
export interface QueueMetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  newLatencyMetric(name: string): HistogramMetric;
  newWorkDurationMetric(name: string): HistogramMetric;
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  newRetriesMetric(name: string): CounterMetric;
  /**
   * Optional: the number of queued items at one `priority` of a queue that
   * orders by priority (`@protean/queue`'s priority queue: `high`, `normal`,
   * `low`); other queues never ask.
   */
  newDepthByPriorityMetric?(name: string, priority: string): GaugeMetric;
}

const noop = Object.freeze({ inc() {}, dec() {}, set() {}, observe() {} });

/** Discards every queue metric; the default when no provider is bound. */
export const noopQueueMetricsProvider: QueueMetricsProvider = Object.freeze({
  newDepthMetric: () => noop,
  newAddsMetric: () => noop,
  newLatencyMetric: () => noop,
  newWorkDurationMetric: () => noop,
  newUnfinishedWorkSecondsMetric: () => noop,
  newLongestRunningProcessorSecondsMetric: () => noop,
  newRetriesMetric: () => noop,
});
