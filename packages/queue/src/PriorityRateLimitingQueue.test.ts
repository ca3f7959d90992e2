import { describe, expect, it } from '@jest/globals';
import type { GaugeMetric } from '@protean/core';
import { FakeClock } from '@protean/core/testing';
import { PriorityRateLimitingQueue, type PriorityRateLimitingQueueOptions } from './PriorityRateLimitingQueue.js';
import { QueueArgumentError } from './QueueArgumentError.js';
import { take } from './take.testkit.js';

function stringsQueue(
  clock = new FakeClock(),
  options: Partial<PriorityRateLimitingQueueOptions<string>> = {},
): PriorityRateLimitingQueue<string> {
  return new PriorityRateLimitingQueue<string>({ key: (s) => s, clock, ...options });
}

describe('PriorityRateLimitingQueue priorities', () => {
  it('hands out a live edit first, ahead of a 10,000-item initial-list backlog', async () => {
    const q = stringsQueue();
    for (let i = 0; i < 10_000; i++) q.add(`obj-${i}`, 'initial-list');
    q.add('edited', 'live');
    expect([q.len(), q.priorityLen('low'), q.priorityLen('normal')]).toEqual([10_001, 10_000, 1]);
    expect(q.depthByPriority()).toEqual({ high: 0, normal: 1, low: 10_000 });
    expect(await take(q)).toBe('edited');
    // The backlog keeps its own order behind it.
    expect([await take(q), await take(q)]).toEqual(['obj-0', 'obj-1']);
  });

  it('treats an add without a source as live, and resync, takeover and requeue adds as low', async () => {
    const q = stringsQueue();
    q.add('resynced', 'resync');
    q.add('taken-over', 'takeover');
    q.add('requeued', 'requeue');
    q.add('plain');
    expect([await take(q), await take(q), await take(q), await take(q)]).toEqual(['plain', 'resynced', 'taken-over', 'requeued']);
  });

  it('moves a queued low item up when a live add of it comes, behind the normal items already queued', async () => {
    const q = stringsQueue();
    for (const s of ['a', 'b', 'c']) q.add(s, 'initial-list');
    q.add('x', 'live');
    q.add('c', 'live');
    expect([q.len(), q.priorityLen('low'), q.priorityLen('normal')]).toEqual([4, 2, 2]);
    // A less urgent add of a queued item moves nothing.
    q.add('x', 'resync');
    expect(q.priorityLen('normal')).toBe(2);
    expect([await take(q), await take(q), await take(q), await take(q)]).toEqual(['x', 'c', 'a', 'b']);
  });

  it('queues an item re-added while processing at the most urgent source it got meanwhile', async () => {
    const q = stringsQueue();
    q.add('a', 'initial-list');
    const got = await q.get();
    expect(got).toEqual({ item: 'a', shutdown: false });
    q.add('b', 'initial-list');
    q.add('a', 'resync');
    q.add('a', 'live');
    q.add('a', 'resync');
    q.done('a');
    expect([q.priorityLen('normal'), q.priorityLen('low')]).toEqual([1, 1]);
    expect([await take(q), await take(q)]).toEqual(['a', 'b']);
  });

  it('adds a delayed item with its source when the delay ends; addRateLimited defaults to retry (normal)', async () => {
    const clock = new FakeClock();
    const q = stringsQueue(clock, { rateLimiter: { when: () => 10, forget: () => {}, numRequeues: () => 0 } });
    q.add('backlog', 'initial-list');
    q.addAfter('polled', 10, 'requeue');
    q.addRateLimited('failed');
    clock.advance(10);
    expect([q.priorityLen('normal'), q.priorityLen('low')]).toEqual([1, 2]);
    expect([await take(q), await take(q), await take(q)]).toEqual(['failed', 'backlog', 'polled']);
  });

  it('uses the priority configured per source', async () => {
    const q = stringsQueue(new FakeClock(), { priorities: { 'initial-list': 'normal', requeue: 'high' } });
    q.add('listed', 'initial-list');
    q.add('resynced', 'resync');
    q.add('requeued', 'requeue');
    q.add('edited');
    expect([await take(q), await take(q), await take(q), await take(q)]).toEqual(['requeued', 'listed', 'edited', 'resynced']);
  });
});

describe('PriorityRateLimitingQueue aging', () => {
  // Two workers, each pass 100 ms on the fake clock: 20 items/s. Live edits of
  // distinct objects arrive at 30/s, so the normal backlog only grows.
  async function runOverloaded(q: PriorityRateLimitingQueue<string>, clock: FakeClock, untilMs: number): Promise<Map<string, number>> {
    const startedAt = new Map<string, number>();
    let next = 0;
    for (let t = 0; t < untilMs; t += 100) {
      for (let i = 0; i < 3; i++) q.add(`live-${next++}`, 'live');
      clock.advance(100);
      for (let worker = 0; worker < 2; worker++) {
        const item = await take(q);
        startedAt.set(item, clock.now());
      }
    }
    return startedAt;
  }

  it('runs a low item within maxWaitMs under a live stream faster than the workers', async () => {
    const clock = new FakeClock();
    const q = stringsQueue(clock, { maxWaitMs: 30_000 });
    q.add('listed-early', 'initial-list');
    clock.advance(0);
    const startedAt = await runOverloaded(q, clock, 45_000);
    const waitedMs = startedAt.get('listed-early');
    expect(waitedMs).toBeDefined();
    // Handed out at the first get after 30 s (gets come every 100 ms), not before.
    expect(waitedMs).toBeGreaterThanOrEqual(30_000);
    expect(waitedMs).toBeLessThanOrEqual(30_100);
    expect(q.agedCount()).toBe(1);
    // The live backlog kept growing meanwhile: the stream really was faster than the workers.
    expect(q.priorityLen('normal')).toBeGreaterThan(400);
  });

  it('starves the low item without aging (maxWaitMs Infinity), under the same load', async () => {
    const clock = new FakeClock();
    const q = stringsQueue(clock, { maxWaitMs: Infinity });
    q.add('listed-early', 'initial-list');
    const startedAt = await runOverloaded(q, clock, 45_000);
    expect(startedAt.has('listed-early')).toBe(false);
    expect([q.priorityLen('low'), q.oldestWaitMs()]).toEqual([1, 45_000]);
  });

  it('serves aged items oldest first, then goes back to priority order', async () => {
    const clock = new FakeClock();
    const q = stringsQueue(clock, { maxWaitMs: 1_000 });
    q.add('low-1', 'resync');
    q.add('low-2', 'resync');
    clock.advance(500);
    q.add('low-3', 'resync');
    clock.advance(500);
    q.add('live-1');
    q.add('live-2');
    expect([await take(q), await take(q), await take(q), await take(q), await take(q)]).toEqual([
      'low-1',
      'low-2',
      'live-1',
      'live-2',
      'low-3',
    ]);
  });

  it('counts the wait from the first add when a queued item moves up', async () => {
    const clock = new FakeClock();
    const q = stringsQueue(clock, { maxWaitMs: 1_000, priorities: { live: 'normal', retry: 'high' } });
    q.add('a', 'resync');
    clock.advance(600);
    q.add('a', 'live');
    q.add('urgent', 'retry');
    clock.advance(400);
    // 'a' has waited 1,000 ms since its first add: it goes before the high item.
    expect([await take(q), await take(q)]).toEqual(['a', 'urgent']);
  });
});

describe('PriorityRateLimitingQueue metrics and input checks', () => {
  it('reports the depth of each priority when the provider can', async () => {
    const depth = new Map<string, number>();
    const gauge = (label: string): GaugeMetric => (
      depth.set(label, 0),
      {
        inc: () => depth.set(label, (depth.get(label) ?? 0) + 1),
        dec: () => depth.set(label, (depth.get(label) ?? 0) - 1),
      }
    );
    const noop = { inc: () => {}, dec: () => {}, set: () => {}, observe: () => {} };
    const provider = {
      newDepthMetric: () => noop,
      newAddsMetric: () => noop,
      newLatencyMetric: () => noop,
      newWorkDurationMetric: () => noop,
      newUnfinishedWorkSecondsMetric: () => noop,
      newLongestRunningProcessorSecondsMetric: () => noop,
      newRetriesMetric: () => noop,
      newDepthByPriorityMetric: (name: string, priority: string) => gauge(`${name}/${priority}`),
    };
    const q = new PriorityRateLimitingQueue<string>({ key: (s) => s, name: 'q', clock: new FakeClock(), metricsProvider: provider });
    for (const s of ['a', 'b', 'c']) q.add(s, 'initial-list');
    q.add('b', 'live');
    expect(Object.fromEntries(depth)).toEqual({ 'q/high': 0, 'q/normal': 1, 'q/low': 2 });
    await take(q);
    expect(Object.fromEntries(depth)).toEqual({ 'q/high': 0, 'q/normal': 0, 'q/low': 2 });
  });

  it('rejects a bad maxWaitMs, an unknown source and an unknown priority, naming them', () => {
    const key = (s: string): string => s;
    expect(() => new PriorityRateLimitingQueue<string>({ key, maxWaitMs: 0 })).toThrow(QueueArgumentError);
    expect(() => new PriorityRateLimitingQueue<string>({ key, maxWaitMs: Number.NaN })).toThrow(
      'PriorityQueueStore: invalid maxWaitMs=NaN: must be a number > 0',
    );
    const unknownSource = { informer: 'low' } as unknown as PriorityRateLimitingQueueOptions<string>['priorities'];
    expect(() => new PriorityRateLimitingQueue<string>({ key, priorities: unknownSource! })).toThrow(
      'PriorityQueueStore: invalid priorities="informer": unknown source',
    );
    const badPriority = { live: 'urgent' } as unknown as PriorityRateLimitingQueueOptions<string>['priorities'];
    expect(() => new PriorityRateLimitingQueue<string>({ key, priorities: badPriority! })).toThrow(
      'PriorityQueueStore: invalid priorities.live="urgent": must be one of high, normal, low',
    );
  });
});
