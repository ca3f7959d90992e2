import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import {
  coreModule,
  silentLogger,
  TOKENS,
  type GroupVersionResource,
  type ObjectIdentifiers,
  type WorkQueueOptions,
  workItemKey,
} from '@protean/core';
import { FakeClock } from '@protean/core/testing';
import { Container } from 'inversify';
import { createPriorityWorkQueueFactory } from './createPriorityWorkQueueFactory.js';
import { PriorityRateLimitingQueue } from './PriorityRateLimitingQueue.js';
import { priorityQueueModule } from './priorityQueueModule.js';
import { queueModule } from './queueModule.js';
import { takeNames } from './take.testkit.js';

const WEBAPPS: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'webapps' };
const controllerOptions: WorkQueueOptions<ObjectIdentifiers> = { key: workItemKey, name: 'dynamic-controller-queue' };
const instance = (name: string): ObjectIdentifiers => ({ gvr: WEBAPPS, namespace: 'ns', name });

describe('priorityQueueModule', () => {
  it('rebinds the work queue factory loaded by queueModule, so the container builds priority queues', async () => {
    const c = new Container();
    c.load(coreModule({}, silentLogger()), queueModule(), priorityQueueModule());
    const q = c.get(TOKENS.workQueueFactory)(controllerOptions);
    expect(q).toBeInstanceOf(PriorityRateLimitingQueue);
    for (let i = 0; i < 3; i++) q.add(instance(`listed-${i}`), 'initial-list');
    q.add(instance('edited'), 'live');
    expect(await takeNames(q, 2)).toEqual(['edited', 'listed-0']);
  });

  it('passes maxWaitMs and priorities to its queues, on the container clock', async () => {
    const clock = new FakeClock();
    const c = new Container();
    c.load(coreModule({}, silentLogger()), priorityQueueModule({ maxWaitMs: 1_000, priorities: { resync: 'normal' } }));
    c.rebind(TOKENS.clock).toConstantValue(clock);
    const q = c.get(TOKENS.workQueueFactory)(controllerOptions);
    q.add(instance('listed'), 'initial-list');
    q.add(instance('resynced'), 'resync');
    clock.advance(1_000);
    q.add(instance('edited'), 'live');
    // 'listed' has waited 1 s: it goes first; then 'resynced', now normal like the edit and older.
    expect(await takeNames(q, 3)).toEqual(['listed', 'resynced', 'edited']);
  });

  it('owns its binding: unloading the module removes the priority factory', () => {
    const module = priorityQueueModule();
    const c = new Container();
    c.load(coreModule({}, silentLogger()), queueModule(), module);
    c.unload(module);
    expect(c.isBound(TOKENS.workQueueFactory)).toBe(false);
  });

  it('rejects bad options when the module or factory is built', () => {
    expect(() => priorityQueueModule({ maxWaitMs: -1 })).toThrow('priorityQueueModule: invalid maxWaitMs=-1: must be a number > 0');
    expect(() => priorityQueueModule({ priorities: { live: 'top' as 'high' } })).toThrow(
      'priorityQueueModule: invalid priorities.live="top": must be one of high, normal, low',
    );
    expect(() => createPriorityWorkQueueFactory({ maxWaitMs: 0 })).toThrow('createPriorityWorkQueueFactory: invalid maxWaitMs=0');
  });

  it('rejects an unfinished-work period of 2^31 ms when the module is built, naming it and the limit', () => {
    expect(() => priorityQueueModule({ unfinishedWorkUpdatePeriodMs: 2 ** 31 })).toThrow(
      "priorityQueueModule: invalid unfinishedWorkUpdatePeriodMs=2147483648: must be a number from 0 to 2147483647 (the longest delay Node's timers honour)",
    );
  });
});
