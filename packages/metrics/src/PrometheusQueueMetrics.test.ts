import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { PrometheusQueueMetrics } from './PrometheusQueueMetrics.js';

describe('PrometheusQueueMetrics', () => {
  it('exports the depth of each priority of a priority queue as workqueue_depth_by_priority', async () => {
    const registry = new Registry();
    const metrics = new PrometheusQueueMetrics(registry);
    const low = metrics.newDepthByPriorityMetric('dynamic-controller-queue', 'low');
    const normal = metrics.newDepthByPriorityMetric('dynamic-controller-queue', 'normal');
    low.inc();
    low.inc();
    normal.inc();
    normal.dec();
    const text = await registry.metrics();
    expect(text).toContain('workqueue_depth_by_priority{name="dynamic-controller-queue",priority="low"} 2');
    expect(text).toContain('workqueue_depth_by_priority{name="dynamic-controller-queue",priority="normal"} 0');
  });
});
