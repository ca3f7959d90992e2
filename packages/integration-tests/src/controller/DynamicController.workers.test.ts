import { afterEach, describe, expect, it } from '@jest/globals';
import { namespacedNameKey, type GroupVersionResource, type Handler } from '@protean/core';
import { createTestController, Deferred, HandlerRecorder, ObserverRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

describe('DynamicController workers', () => {
  let t: TestController;
  const gates: Deferred[] = [];

  afterEach(async () => {
    for (const g of gates.splice(0)) g.resolve();
    await t.dispose();
  });

  it('contains a handler that throws synchronously: the worker goes on with the next item', async () => {
    const observer = new ObserverRecorder();
    t = createTestController({ logFailures: false, observer, config: { queueMaxRetries: 0 } });
    t.source.add(parent, { name: 'bad', namespace: 'ns' });
    t.source.add(parent, { name: 'good', namespace: 'ns' });
    const boom = new Error('thrown before any promise');
    const h = new HandlerRecorder(((req) => {
      if (req.name === 'bad') throw boom;
      return Promise.resolve();
    }) as Handler);
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(h.keys()).toEqual(['ns/bad', 'ns/good']);
    expect(observer.outcomes()).toEqual(['dropped', 'success']);
    expect(observer.handlerErrors).toEqual([{ gvr: parent, err: boom, thrownSync: true }]);

    t.source.add(parent, { name: 'later', namespace: 'ns' });
    await t.waitFor(() => h.count({ namespace: 'ns', name: 'later' }) === 1);
  });

  it('contains a handler that rejects: the worker goes on with the next item', async () => {
    const observer = new ObserverRecorder();
    t = createTestController({ logFailures: false, observer, config: { queueMaxRetries: 0 } });
    t.source.add(parent, { name: 'bad', namespace: 'ns' });
    t.source.add(parent, { name: 'good', namespace: 'ns' });
    const h = new HandlerRecorder((req) => (req.name === 'bad' ? Promise.reject(new Error('async failure')) : Promise.resolve()));
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['dropped', 'success']);
    expect(observer.handlerErrors.map((e) => e.thrownSync)).toEqual([false]);

    t.source.add(parent, { name: 'later', namespace: 'ns' });
    await t.waitFor(() => h.count({ namespace: 'ns', name: 'later' }) === 1);
  });

  it('survives an observer hook that throws', async () => {
    t = createTestController({
      logFailures: false,
      observer: {
        onReconcile: () => {
          throw new Error('metrics broke');
        },
      },
    });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() === 1);
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    await t.waitFor(() => h.count() === 2);
  });

  it('runs `workers` handlers at once but never one key twice at once', async () => {
    t = createTestController({ logFailures: false, config: { workers: 3 } });
    for (const name of ['a', 'b', 'c']) t.source.add(parent, { name, namespace: 'ns' });
    const running = new Set<string>();
    let maxRunning = 0;
    const overlaps: string[] = [];
    const firstRound = new Deferred();
    gates.push(firstRound);
    const h = new HandlerRecorder(async (req) => {
      const key = namespacedNameKey(req);
      if (running.has(key)) overlaps.push(key);
      running.add(key);
      maxRunning = Math.max(maxRunning, running.size);
      try {
        await firstRound.promise;
      } finally {
        running.delete(key);
      }
    });
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => running.size === 3);
    expect(maxRunning).toBe(3);

    // While a runs, it changes twice: the two adds collapse and wait for done.
    t.source.update(parent, { name: 'a', namespace: 'ns', generation: 2 });
    t.source.update(parent, { name: 'a', namespace: 'ns', generation: 3 });
    t.source.add(parent, { name: 'd', namespace: 'ns' });
    await t.waitFor(() => t.controller.queueLength() === 1); // d; a is held back as processing
    expect(h.count({ namespace: 'ns', name: 'a' })).toBe(1);

    firstRound.resolve();
    await t.waitFor(() => h.count() === 5 && running.size === 0);
    expect(h.count({ namespace: 'ns', name: 'a' })).toBe(2);
    expect(h.count({ namespace: 'ns', name: 'd' })).toBe(1);
    expect(overlaps).toEqual([]);
  });
});
