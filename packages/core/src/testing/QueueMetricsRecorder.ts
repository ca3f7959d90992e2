import type { QueueMetricsProvider } from '../index.js';
import type { CounterMetric, GaugeMetric, HistogramMetric, SettableGaugeMetric } from '../queueMetrics.js';

/**
 * A {@link QueueMetricsProvider} that records which metrics a queue created
 * and every update they received, summed over all the queues it serves.
 * Bind it as the queue metrics provider (or pass it as `metricsProvider`)
 * and assert on `created`, the counters and the observed values.
 * Easy to get wrong: values are not kept per queue; give each queue under
 * test its own recorder.
 */
export class QueueMetricsRecorder implements QueueMetricsProvider {
  /** Every metric created, as `kind:queueName` (kind: depth, adds, latency, workDuration, unfinished, longest, retries), in order. */
  readonly created: string[] = [];
  /** The depth gauge: incremented and decremented. */
  depth = 0;
  adds = 0;
  retries = 0;
  readonly latencySeconds: number[] = [];
  readonly workSeconds: number[] = [];
  /** Every value the unfinished-work gauge was set to, in order. */
  readonly unfinishedSeconds: number[] = [];
  /** Every value the longest-running-processor gauge was set to, in order. */
  readonly longestSeconds: number[] = [];

  newDepthMetric(name: string): GaugeMetric {
    this.note('depth', name);
    return { inc: () => void this.depth++, dec: () => void this.depth-- };
  }

  newAddsMetric(name: string): CounterMetric {
    this.note('adds', name);
    return { inc: () => void this.adds++ };
  }

  newLatencyMetric(name: string): HistogramMetric {
    return { observe: this.recording('latency', name, this.latencySeconds) };
  }

  newWorkDurationMetric(name: string): HistogramMetric {
    return { observe: this.recording('workDuration', name, this.workSeconds) };
  }

  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    return { set: this.recording('unfinished', name, this.unfinishedSeconds) };
  }

  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    return { set: this.recording('longest', name, this.longestSeconds) };
  }

  newRetriesMetric(name: string): CounterMetric {
    this.note('retries', name);
    return { inc: () => void this.retries++ };
  }

  /** The queue name of each metric created, in creation order. */
  queueNames(): string[] {
    return this.created.map((c) => c.slice(c.indexOf(':') + 1));
  }

  private note(kind: string, name: string): void {
    this.created.push(`${kind}:${name}`);
  }

  /** Notes the metric, and returns a function that keeps every value it is given in `values`. */
  private recording(kind: string, name: string, values: number[]): (value: number) => void {
    this.note(kind, name);
    return (value) => void values.push(value);
  }
}
