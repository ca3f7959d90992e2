import { describe, expect, it } from '@jest/globals';
import { type GroupVersionResource, type ObjectIdentifiers, type RateLimitingQueue, type WorkQueueOptions } from '@protean/core';
import { FakeClock } from '@protean/core/testing';
import { createFairWorkQueueFactory, type FairWorkQueueOptions } from './createFairWorkQueueFactory.js';
import { FairRateLimitingQueue } from './FairRateLimitingQueue.js';
import { takeNames } from './take.testkit.js';

const WEBAPPS: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'webapps' };
const DATABASES: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'databases' };
const options: WorkQueueOptions<ObjectIdentifiers> = { key: (i) => `${i.gvr.resource}|${i.namespace}/${i.name}`, name: 'parents' };

/** Three webapps, then one database, all in namespace "ns". */
function addParents(q: RateLimitingQueue<ObjectIdentifiers>): void {
  for (let i = 0; i < 3; i++) q.add({ gvr: WEBAPPS, namespace: 'ns', name: `web-${i}` });
  q.add({ gvr: DATABASES, namespace: 'ns', name: 'db-0' });
}

describe('createFairWorkQueueFactory', () => {
  it('builds named fair queues that take turns between parent GVRs by default', async () => {
    const q = createFairWorkQueueFactory({ clock: new FakeClock() })(options);
    expect(q).toBeInstanceOf(FairRateLimitingQueue);
    expect((q as FairRateLimitingQueue<ObjectIdentifiers>).name).toBe('parents');
    addParents(q);
    expect(await takeNames(q, 4)).toEqual(['web-0', 'db-0', 'web-1', 'web-2']);
  });

  it('prefers a group function carried by the queue options over the factory group', async () => {
    const factory = createFairWorkQueueFactory({ group: () => 'everything' });
    const byNamespace: FairWorkQueueOptions<ObjectIdentifiers> = { ...options, group: (i) => i.namespace };
    const grouped = factory(byNamespace);
    grouped.add({ gvr: WEBAPPS, namespace: 'a', name: 'a-0' });
    grouped.add({ gvr: WEBAPPS, namespace: 'a', name: 'a-1' });
    grouped.add({ gvr: WEBAPPS, namespace: 'b', name: 'b-0' });
    expect(await takeNames(grouped, 3)).toEqual(['a-0', 'b-0', 'a-1']);
    // Without one, the factory group applies: here a single group, so plain FIFO.
    const fifo = factory(options);
    addParents(fifo);
    expect(await takeNames(fifo, 4)).toEqual(['web-0', 'web-1', 'web-2', 'db-0']);
  });

  it('builds the limiter from options.limits on the shared clock', () => {
    const clock = new FakeClock();
    const q = createFairWorkQueueFactory({ clock })({
      ...options,
      limits: { minRetryDelayMs: 200, maxRetryDelayMs: 1_000, qps: 10, burst: 100 },
    });
    q.addRateLimited({ gvr: WEBAPPS, namespace: 'ns', name: 'web-0' });
    clock.advance(199);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
  });

  it('rejects a group that is not a function, naming where it came from', () => {
    expect(() => createFairWorkQueueFactory({ group: 'gvr' as unknown as () => string })).toThrow(
      'createFairWorkQueueFactory: deps.group must be a function, got string',
    );
    const factory = createFairWorkQueueFactory();
    expect(() => factory({ ...options, group: 42 } as WorkQueueOptions<ObjectIdentifiers>)).toThrow(
      'createFairWorkQueueFactory: options.group of queue "parents" must be a function, got number',
    );
    expect(() => createFairWorkQueueFactory({ unfinishedWorkUpdatePeriodMs: -1 })).toThrow(
      'createFairWorkQueueFactory: invalid unfinishedWorkUpdatePeriodMs=-1',
    );
  });
});
