import { describe, expect, it } from '@jest/globals';
import type { WatchEvent } from '@protean/core';
import { parseSelector } from './deps.testkit.js';
import { APP1, APP2, app1, app2, configmaps, webapps } from './fixtures.testkit.js';
import { event, newHarness, type Harness } from './harness.testkit.js';

/** app1 watches ConfigMap default/c by name, app2 every ConfigMap labelled app=a in default. */
async function watchingHarness(): Promise<Harness> {
  const h = newHarness();
  const w1 = h.coordinator.forInstance(webapps, app1);
  await w1.watch({ nodeId: 'config', gvr: configmaps, namespace: 'default', name: 'c' });
  w1.done(true);
  const w2 = h.coordinator.forInstance(webapps, app2);
  await w2.watch({ nodeId: 'configs', gvr: configmaps, namespace: 'default', selector: parseSelector('app=a') });
  w2.done(true);
  return h;
}

describe('IndexedWatchCoordinator and replayed events', () => {
  it('enqueues nothing for an initial-list add that matches a scalar and a collection request', async () => {
    const { coordinator, enqueued } = await watchingHarness();
    const initial: WatchEvent = { ...event(configmaps, 'default', 'c', { app: 'a' }), initialList: true };
    coordinator.routeEvent(initial);
    expect(enqueued.take()).toEqual([]);

    coordinator.routeEvent(event(configmaps, 'default', 'c', { app: 'a' }));
    expect(enqueued.take()).toEqual([APP1, APP2]);
  });

  it('enqueues nothing for a resync update that matches a scalar and a collection request', async () => {
    const { coordinator, enqueued } = await watchingHarness();
    const update = event(configmaps, 'default', 'c', { app: 'a' }, { app: 'a' });
    coordinator.routeEvent({ ...update, resync: true });
    expect(enqueued.take()).toEqual([]);

    coordinator.routeEvent(update);
    expect(enqueued.take()).toEqual([APP1, APP2]);
  });

  it('enqueues nothing for a child that entered the share through a range taken over', async () => {
    const { coordinator, enqueued } = await watchingHarness();
    coordinator.routeEvent({ ...event(configmaps, 'default', 'c', { app: 'a' }), takeover: true });
    expect(enqueued.take()).toEqual([]);
  });

  it('routes adds and updates whose replay flags are explicitly false', async () => {
    const { coordinator, enqueued } = await watchingHarness();
    coordinator.routeEvent({ ...event(configmaps, 'default', 'c'), initialList: false });
    coordinator.routeEvent({ ...event(configmaps, 'default', 'c', {}, {}), resync: false });
    expect(enqueued.take()).toEqual([APP1, APP1]);
  });
});
