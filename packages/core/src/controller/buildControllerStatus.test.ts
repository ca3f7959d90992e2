import { describe, expect, it } from '@jest/globals';
import type { RateLimitingQueue } from '../contracts/index.js';
import type { ObjectIdentifiers } from '../gvr.js';
import { FakeClock, FakeWorkQueue } from '../testing/index.js';
import { buildQueueStatus } from './buildControllerStatus.js';
import { WorkerActivity } from './WorkerActivity.js';

function queueStatusOf(queue: RateLimitingQueue<ObjectIdentifiers>) {
  const clock = new FakeClock();
  return buildQueueStatus({
    nowMs: clock.now(),
    wallTime: (ms) => new Date(ms).toISOString(),
    queue,
    activity: new WorkerActivity(clock),
    workers: 2,
    reconcileTimeoutMs: 0,
  });
}

describe('buildQueueStatus', () => {
  const item = (name: string): ObjectIdentifiers => ({
    gvr: { group: 'example.com', version: 'v1', resource: 'webapps' },
    namespace: 'ns',
    name,
  });

  it('reports the depth per priority when the queue tells it', () => {
    const queue = new FakeWorkQueue<ObjectIdentifiers>({ key: (i) => i.name });
    queue.add(item('a'));
    queue.add(item('b'));
    const prioritized = Object.assign(queue, { depthByPriority: () => ({ high: 0, normal: 1, low: 1 }) });
    expect(queueStatusOf(prioritized)).toMatchObject({ depth: 2, depthByPriority: { high: 0, normal: 1, low: 1 } });
  });

  it('leaves depthByPriority out for a queue that does not order by priority', () => {
    const queue = new FakeWorkQueue<ObjectIdentifiers>({ key: (i) => i.name });
    queue.add(item('a'));
    const status = queueStatusOf(queue);
    expect(status.depth).toBe(1);
    expect('depthByPriority' in status).toBe(false);
  });
});
