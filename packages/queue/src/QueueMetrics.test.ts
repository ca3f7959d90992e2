import { describe, expect, it } from '@jest/globals';
import { noopQueueMetricsProvider } from '@protean/core/internal';
import { FakeClock, QueueMetricsRecorder } from '@protean/core/testing';
import { BasicWorkQueue } from './BasicWorkQueue.js';
import { DelayingWorkQueue } from './DelayingWorkQueue.js';
import { RateLimitingWorkQueue, type RateLimitingWorkQueueOptions } from './RateLimitingWorkQueue.js';
import { fairQueueKinds } from './fairQueueKinds.testkit.js';
import { priorityQueueKinds } from './priorityQueueKinds.testkit.js';

type Make = <T>(options: RateLimitingWorkQueueOptions<T>) => RateLimitingWorkQueue<T>;
// The fair queue must report exactly the same metrics, so these run against it too.
const kinds: readonly (readonly [label: string, make: Make])[] = [
  ['RateLimitingWorkQueue', (options) => new RateLimitingWorkQueue(options)],
  ...fairQueueKinds,
  ...priorityQueueKinds,
];

describe.each(kinds)('queue metrics of %s', (_label, make) => {
  function metered(): { clock: FakeClock; metrics: QueueMetricsRecorder; q: RateLimitingWorkQueue<string> } {
    const clock = new FakeClock();
    const metrics = new QueueMetricsRecorder();
    const q = make<string>({ key: (s) => s, name: 'demo', clock, metricsProvider: metrics });
    return { clock, metrics, q };
  }

  it('creates every metric under the queue name', () => {
    const { metrics } = metered();
    expect(metrics.created.sort()).toEqual(
      ['adds', 'depth', 'latency', 'longest', 'retries', 'unfinished', 'workDuration'].map((m) => `${m}:demo`),
    );
  });

  it('counts adds and depth, collapsing duplicates of queued items', async () => {
    const { metrics, q } = metered();
    q.add('a');
    q.add('b');
    q.add('a');
    expect([metrics.adds, metrics.depth]).toEqual([2, 2]);
    await q.get();
    expect([metrics.adds, metrics.depth]).toEqual([2, 1]);
  });

  it('observes queue latency from add to get and work duration from get to done, in seconds', async () => {
    const { clock, metrics, q } = metered();
    q.add('a');
    clock.advance(100);
    q.add('b');
    clock.advance(150);
    await q.get(); // a: waited 250 ms
    clock.advance(500);
    q.done('a'); // a: worked 500 ms
    await q.get(); // b: waited 650 ms
    expect(metrics.latencySeconds).toEqual([0.25, 0.65]);
    expect(metrics.workSeconds).toEqual([0.5]);
  });

  it('counts an add during processing once and measures its latency from that add', async () => {
    const { clock, metrics, q } = metered();
    q.add('a');
    await q.get();
    clock.advance(100);
    q.add('a');
    q.add('a');
    expect([metrics.adds, metrics.depth]).toEqual([2, 1]);
    clock.advance(300);
    q.done('a');
    clock.advance(50);
    await q.get();
    expect(metrics.depth).toBe(0);
    expect(metrics.latencySeconds).toEqual([0, 0.35]);
    expect(metrics.workSeconds).toEqual([0.4]);
  });

  it('updateUnfinishedWork sets total and longest in-flight seconds', async () => {
    const { clock, metrics, q } = metered();
    q.updateUnfinishedWork();
    q.add('a');
    q.add('b');
    q.add('c');
    await q.get();
    clock.advance(1_000);
    await q.get();
    clock.advance(500);
    q.updateUnfinishedWork(); // a: 1.5 s, b: 0.5 s, c queued (not counted)
    q.done('a');
    q.updateUnfinishedWork(); // b: 0.5 s
    expect(metrics.unfinishedSeconds).toEqual([0, 2, 0.5]);
    expect(metrics.longestSeconds).toEqual([0, 1.5, 0.5]);
  });

  it('counts a retry for every delayed add, including addRateLimited, but not for plain adds', () => {
    const { metrics, q } = metered();
    q.add('a');
    q.addRateLimited('b');
    q.addRateLimited('b');
    q.addAfter('c', 0);
    expect(metrics.retries).toBe(3);
    q.shutdown();
    q.addRateLimited('d');
    expect(metrics.retries).toBe(3);
  });
});

describe('queue metrics', () => {
  it('refreshes the unfinished-work gauges on a timer when a period is set, and stops it at shutdown', async () => {
    const clock = new FakeClock();
    const metrics = new QueueMetricsRecorder();
    const q = new DelayingWorkQueue<string>({
      key: (s) => s,
      name: 'demo',
      clock,
      metricsProvider: metrics,
      unfinishedWorkUpdatePeriodMs: 500,
    });
    q.add('a');
    await q.get();
    await clock.advanceAsync(1_000);
    expect(metrics.unfinishedSeconds).toEqual([0.5, 1]);
    expect(clock.pendingTimers()).toBe(1);
    q.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    await clock.advanceAsync(1_000);
    expect(metrics.unfinishedSeconds).toEqual([0.5, 1]);
  });

  it('reports nothing and starts no timer for an unnamed queue, as client-go does', async () => {
    const clock = new FakeClock();
    const metrics = new QueueMetricsRecorder();
    const q = new DelayingWorkQueue<string>({ key: (s) => s, clock, metricsProvider: metrics, unfinishedWorkUpdatePeriodMs: 500 });
    q.add('a');
    q.addAfter('b', 10);
    await q.get();
    q.updateUnfinishedWork();
    expect(metrics.created).toEqual([]);
    expect(metrics.adds).toBe(0);
    expect(clock.pendingTimers()).toBe(1); // only the delay timer
  });

  it('starts no metrics timer with the no-op provider', () => {
    const clock = new FakeClock();
    const q = new BasicWorkQueue<string>({
      key: (s) => s,
      name: 'demo',
      clock,
      metricsProvider: noopQueueMetricsProvider,
      unfinishedWorkUpdatePeriodMs: 500,
    });
    expect(clock.pendingTimers()).toBe(0);
    q.shutdown();
  });
});
