import { afterEach, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { createTestController, fakeObject, FakeClock, HandlerRecorder, ObserverRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const settings: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'settings' };
/** The informers' resync period; their clock is advanced by hand. */
const RESYNC_MS = 60_000;

describe('DynamicController parent updates', () => {
  let t: TestController;

  afterEach(async () => {
    await t.dispose();
  });

  it('reconciles every update of a parent that does not track generation', async () => {
    t = createTestController({ logFailures: false });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(settings, h.handler);
    // Pushed straight to the informer: the fake source would give the object a generation.
    const informer = t.source.informer(settings)!;
    informer.add(fakeObject({ name: 'a', namespace: 'ns', resourceVersion: '1' }));
    await t.waitFor(() => h.count() === 1);
    informer.update(fakeObject({ name: 'a', namespace: 'ns', resourceVersion: '2', labels: { data: 'changed' } }));
    await t.waitFor(() => h.count() === 2);
    expect(h.keys()).toEqual(['ns/a', 'ns/a']);
  });

  it('reconciles every parent again on a resync, though no generation changed', async () => {
    const observer = new ObserverRecorder();
    const informerClock = new FakeClock();
    t = createTestController({
      logFailures: false,
      observer,
      config: { resyncPeriodMs: RESYNC_MS },
      watchManager: { clock: informerClock },
    });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => h.count() === 2);

    informerClock.advance(RESYNC_MS);
    await t.waitFor(() => h.count() === 4);
    expect(h.keys().slice(2).sort()).toEqual(['ns/a', 'ns/b']);
    expect(observer.parentEvents.filter((e) => e.type === 'update')).toHaveLength(2);
  });

  it('brings back an instance dropped after queueMaxRetries at the next resync', async () => {
    const clock = new FakeClock();
    const informerClock = new FakeClock();
    const observer = new ObserverRecorder();
    t = createTestController({
      logFailures: false,
      clock,
      observer,
      config: { queueMaxRetries: 0, resyncPeriodMs: RESYNC_MS },
      watchManager: { clock: informerClock },
    });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const h = new HandlerRecorder(() => Promise.reject(new Error('boom')));
    await t.start();
    await t.register(parent, h.handler);
    await t.waitFor(() => observer.outcomes().length === 1);
    expect(observer.outcomes()).toEqual(['dropped']);

    h.impl = () => Promise.resolve();
    informerClock.advance(RESYNC_MS);
    await t.waitFor(() => observer.outcomes().length === 2);
    expect(observer.outcomes()).toEqual(['dropped', 'success']);
    expect(h.count()).toBe(2);
  });
});
