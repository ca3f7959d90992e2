import { describe, expect, it } from '@jest/globals';
import { type WorkQueueOptions } from '@protean/core';
import { noopQueueMetricsProvider } from '@protean/core/internal';
import { FakeClock } from '@protean/core/testing';
import { createWorkQueueFactory } from './createWorkQueueFactory.js';
import { RateLimitingWorkQueue } from './RateLimitingWorkQueue.js';

const options: WorkQueueOptions<string> = { key: (s) => s, name: 'webapps' };

describe('createWorkQueueFactory', () => {
  it('builds named rate-limiting queues on the given clock without a container', () => {
    const clock = new FakeClock();
    const factory = createWorkQueueFactory({ clock, metricsProvider: noopQueueMetricsProvider });
    const q = factory(options);
    expect(q).toBeInstanceOf(RateLimitingWorkQueue);
    expect((q as RateLimitingWorkQueue<string>).name).toBe('webapps');
    q.addAfter('a', 10);
    clock.advance(10);
    expect(q.len()).toBe(1);
  });

  it('rejects bad limits when a queue is built, naming the field', () => {
    const factory = createWorkQueueFactory({ clock: new FakeClock() });
    expect(() => factory({ ...options, limits: { minRetryDelayMs: 5, maxRetryDelayMs: 10, qps: 0, burst: 1 } })).toThrow(
      'controllerRateLimiter: invalid limits.qps=0',
    );
  });

  it('rejects a bad unfinished-work period at once', () => {
    expect(() => createWorkQueueFactory({ unfinishedWorkUpdatePeriodMs: -5 })).toThrow(
      'createWorkQueueFactory: invalid unfinishedWorkUpdatePeriodMs=-5',
    );
    expect(() => createWorkQueueFactory({ unfinishedWorkUpdatePeriodMs: 2 ** 31 })).toThrow(
      "createWorkQueueFactory: invalid unfinishedWorkUpdatePeriodMs=2147483648: must be a number from 0 to 2147483647 (the longest delay Node's timers honour)",
    );
  });
});
