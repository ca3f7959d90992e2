import { describe, expect, it } from '@jest/globals';
import { gvrKey, type GroupVersionResource, type ObjectIdentifiers, workItemKey } from '@protean/core';
import { FakeClock } from '@protean/core/testing';
import { FairRateLimitingQueue } from './FairRateLimitingQueue.js';
import { QueueArgumentError } from './QueueArgumentError.js';
import { take, takeNames } from './take.testkit.js';

const gvr = (resource: string): GroupVersionResource => ({ group: 'example.com', version: 'v1', resource });
const WEBAPPS = gvr('webapps');
const DATABASES = gvr('databases');
const CACHES = gvr('caches');
const instance = (parent: GroupVersionResource, name: string): ObjectIdentifiers => ({ gvr: parent, namespace: 'ns', name });

function parentsQueue(clock = new FakeClock()): FairRateLimitingQueue<ObjectIdentifiers> {
  return new FairRateLimitingQueue<ObjectIdentifiers>({ key: workItemKey, group: (i) => gvrKey(i.gvr), clock });
}

/** Strings as items, grouped by their first letter. */
function lettersQueue(clock = new FakeClock()): FairRateLimitingQueue<string> {
  return new FairRateLimitingQueue<string>({ key: (s) => s, group: (s) => s.charAt(0), clock });
}

describe('FairRateLimitingQueue fairness', () => {
  it('hands out a lone instance of a second parent by the 2nd get, behind 10,000 queued instances of another', async () => {
    const q = parentsQueue();
    for (let i = 0; i < 10_000; i++) q.add(instance(WEBAPPS, `web-${i}`));
    q.add(instance(DATABASES, 'db-0'));
    expect(q.len()).toBe(10_001);
    expect(q.groupCount()).toBe(2);
    expect(await takeNames(q, 2)).toEqual(['web-0', 'db-0']);
    // The busy parent keeps its own FIFO order.
    const rest = await takeNames(q, 9_999);
    expect(rest).toEqual(Array.from({ length: 9_999 }, (_, i) => `web-${i + 1}`));
    expect(q.len()).toBe(0);
  });

  it('hands out an item of a newly active group within (active groups) gets, wherever the rotation stands', async () => {
    for (let alreadyTaken = 0; alreadyTaken < 7; alreadyTaken++) {
      const q = lettersQueue();
      for (let i = 0; i < 1_000; i++) for (const letter of ['a', 'b', 'c']) q.add(`${letter}${i}`);
      for (let i = 0; i < alreadyTaken; i++) await take(q);
      q.add('z0');
      const activeGroups = q.groupCount();
      expect(activeGroups).toBe(4);
      const served: string[] = [];
      for (let i = 0; i < activeGroups; i++) served.push(await take(q));
      expect(served).toContain('z0');
      q.shutdown();
    }
  });

  it('serves groups of 1000, 10 and 1 queued items in exact round-robin order', async () => {
    const q = parentsQueue();
    for (let i = 0; i < 1_000; i++) q.add(instance(WEBAPPS, `web-${i}`));
    for (let i = 0; i < 10; i++) q.add(instance(DATABASES, `db-${i}`));
    q.add(instance(CACHES, 'cache-0'));
    const expected = ['web-0', 'db-0', 'cache-0'];
    for (let i = 1; i < 10; i++) expected.push(`web-${i}`, `db-${i}`);
    for (let i = 10; i < 1_000; i++) expected.push(`web-${i}`);
    expect(await takeNames(q, 1_011)).toEqual(expected);
  });

  it('drops an emptied group from the rotation and puts it back at the end when an item arrives', async () => {
    const q = lettersQueue();
    for (const s of ['a1', 'a2', 'b1', 'c1', 'c2']) q.add(s);
    expect(q.groups()).toEqual(['a', 'b', 'c']);
    expect(await take(q)).toBe('a1');
    expect(q.groups()).toEqual(['b', 'c', 'a']);
    expect(await take(q)).toBe('b1');
    expect(q.groups()).toEqual(['c', 'a']);
    expect(q.groupLen('b')).toBe(0);
    q.add('b2');
    expect(q.groups()).toEqual(['c', 'a', 'b']);
    expect([await take(q), await take(q), await take(q), await take(q)]).toEqual(['c1', 'a2', 'b2', 'c2']);
    expect(q.groupCount()).toBe(0);
  });

  it('counts queued items of every group in len(), but not delayed or processing ones', async () => {
    const clock = new FakeClock();
    const q = lettersQueue(clock);
    for (const s of ['a1', 'a2', 'b1']) q.add(s);
    q.addAfter('c1', 100);
    expect([q.len(), q.groupLen('a'), q.groupLen('b'), q.groupLen('c')]).toEqual([3, 2, 1, 0]);
    const first = await q.get();
    expect(first).toEqual({ item: 'a1', shutdown: false });
    expect(q.len()).toBe(2);
    clock.advance(100);
    expect([q.len(), q.groupLen('c')]).toEqual([3, 1]);
  });

  it('collapses a duplicate add into the queued item, in its group, keeping its place', async () => {
    const q = parentsQueue();
    q.add(instance(WEBAPPS, 'web-0'));
    q.add(instance(WEBAPPS, 'web-1'));
    q.add(instance(DATABASES, 'db-0'));
    q.add(instance(WEBAPPS, 'web-0'));
    q.add(instance(DATABASES, 'db-0'));
    expect([q.len(), q.groupLen(gvrKey(WEBAPPS)), q.groupLen(gvrKey(DATABASES))]).toEqual([3, 2, 1]);
    expect(await takeNames(q, 3)).toEqual(['web-0', 'db-0', 'web-1']);
  });

  it('queues an item re-added while processing at the back of its group once it is done', async () => {
    const q = lettersQueue();
    for (const s of ['a1', 'a2', 'b1']) q.add(s);
    const a1 = await q.get();
    expect(a1).toEqual({ item: 'a1', shutdown: false });
    q.add('a1');
    q.add('a1');
    expect([q.len(), q.groupLen('a')]).toEqual([2, 1]);
    q.done('a1');
    expect([q.len(), q.groupLen('a')]).toEqual([3, 2]);
    expect([await take(q), await take(q), await take(q)]).toEqual(['b1', 'a2', 'a1']);
  });

  it('puts a delayed item at the back of its group when its delay ends', async () => {
    const clock = new FakeClock();
    const q = lettersQueue(clock);
    for (const s of ['a1', 'a2', 'a3']) q.add(s);
    q.addAfter('b1', 100);
    expect(await take(q)).toBe('a1');
    clock.advance(100);
    expect([await take(q), await take(q), await take(q)]).toEqual(['a2', 'b1', 'a3']);
  });

  it('still hands out every queued group after shutdown, round robin, then reports shutdown', async () => {
    const q = lettersQueue();
    for (const s of ['a1', 'a2', 'b1']) q.add(s);
    q.shutdown();
    q.add('c1');
    expect([await take(q), await take(q), await take(q)]).toEqual(['a1', 'b1', 'a2']);
    expect(await q.get()).toEqual({ shutdown: true });
  });
});

describe('FairRateLimitingQueue input checks', () => {
  const resourceOnly = (i: { name: string; resource?: string }): string => i.resource as string;

  it('rejects an item whose group is not a string, naming the call, and queues nothing', async () => {
    const q = new FairRateLimitingQueue<{ name: string; resource?: string }>({ key: (i) => i.name, group: resourceOnly });
    const bad = { name: 'x' };
    expect(() => q.add(bad)).toThrow(QueueArgumentError);
    expect(() => q.add(bad)).toThrow('FairRateLimitingQueue.add: invalid group(item)=undefined: the group function must return a string');
    expect(q.len()).toBe(0);
    // The rejected key left no trace: adding it with a good group queues it.
    q.add({ name: 'x', resource: 'webapps' });
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual({ item: { name: 'x', resource: 'webapps' }, shutdown: false });
  });

  it('rejects a bad group at addAfter and addRateLimited time, before any timer or limiter sees it', () => {
    const clock = new FakeClock();
    let asked = 0;
    const rateLimiter = { when: () => (asked++, 10), forget: () => {}, numRequeues: () => asked };
    const q = new FairRateLimitingQueue<{ name: string; resource?: string }>({
      key: (i) => i.name,
      group: resourceOnly,
      clock,
      rateLimiter,
    });
    expect(() => q.addAfter({ name: 'x' }, 100)).toThrow('FairRateLimitingQueue.addAfter: invalid group(item)=undefined');
    expect(() => q.addRateLimited({ name: 'x' })).toThrow('FairRateLimitingQueue.addRateLimited: invalid group(item)=undefined');
    expect([q.waitingLen(), clock.pendingTimers(), asked]).toEqual([0, 0, 0]);
  });

  it('lets an error thrown by the group function propagate from add, leaving the queue usable', async () => {
    const boom = new Error('no group for poison');
    const q = new FairRateLimitingQueue<string>({
      key: (s) => s,
      group: (s) => {
        if (s === 'poison') throw boom;
        return s.charAt(0);
      },
    });
    expect(() => q.add('poison')).toThrow(boom);
    q.add('a1');
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual({ item: 'a1', shutdown: false });
  });

  it('rejects a missing group function, naming it', () => {
    expect(() => new FairRateLimitingQueue<string>({ key: (s) => s, group: undefined as unknown as (s: string) => string })).toThrow(
      'FairRateLimitingQueue: options.group must be a function, got undefined',
    );
  });

  it('ignores a store option: it always keeps its own groups', async () => {
    const options = { key: (s: string) => s, group: (s: string) => s.charAt(0), store: () => 'not a store' };
    const q = new FairRateLimitingQueue<string>(options);
    for (const s of ['a1', 'a2', 'b1']) q.add(s);
    expect([await take(q), await take(q)]).toEqual(['a1', 'b1']);
  });
});
