import { afterEach, describe, expect, it } from '@jest/globals';
import { gvrKey, parseSelector, type GroupVersionResource, type InformerSource, type PartialObjectMetadata } from '@protean/core';
import {
  createTestController,
  FakeClock,
  FakeInformerSource,
  fakeObject,
  flushMicrotasks,
  HandlerRecorder,
  type TestController,
} from '@protean/testing';
import { PollingInformerSource } from './PollingInformerSource.js';

/*
 * A polling source for readings of an API without watch, under a real
 * DynamicController (createTestController: the real informer engine,
 * watch manager, coordinator and queue): its changes are routed to the
 * parent instances whose collection watch selects them.
 */

const SENSORS: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'sensors' };
const READINGS: GroupVersionResource = { group: 'metrics.example.com', version: 'v1', resource: 'readings' };
const POLL_MS = 10_000;

/** The unwatchable API: what the next poll returns, and a switch to make it fail. */
class ReadingsApi {
  readings = new Map<string, PartialObjectMetadata>();
  polls = 0;
  down = false;

  set(name: string, sensor: string, value: number): void {
    // The content is the version: an unchanged reading is not an update.
    this.readings.set(name, fakeObject({ namespace: 'lab', name, labels: { sensor }, resourceVersion: `${sensor}-${value}` }));
  }

  list = (): Promise<PartialObjectMetadata[]> => {
    this.polls++;
    return this.down ? Promise.reject(new Error('503 readings unavailable')) : Promise.resolve([...this.readings.values()]);
  };
}

let t: TestController<InformerSource> | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

async function start(api: ReadingsApi, clock: FakeClock) {
  const sensors = new FakeInformerSource();
  const polling = new PollingInformerSource({ list: api.list, intervalMs: POLL_MS, clock });
  // Sensors are watched as usual; readings come from the polling source.
  const source: InformerSource = {
    createListWatch: (gvr) => (gvrKey(gvr) === gvrKey(READINGS) ? polling : sensors).createListWatch(gvr),
  };
  t = createTestController({ source });
  sensors.add(SENSORS, { namespace: 'lab', name: 'thermo' });
  sensors.add(SENSORS, { namespace: 'lab', name: 'hygro' });
  const h = new HandlerRecorder(async (req, ctx) => {
    await ctx.watcher.watch({ nodeId: 'readings', gvr: READINGS, namespace: 'lab', selector: parseSelector(`sensor=${req.name}`) });
  });
  await t.start();
  await t.register(SENSORS, h.handler);
  await t.waitFor(() => h.count() === 2 && t!.controller.informer(READINGS)?.hasSynced() === true);
  return h;
}

/** Lets the polling loop's next turn run on the fake clock. */
async function nextPoll(clock: FakeClock): Promise<void> {
  await clock.advanceAsync(POLL_MS);
  await flushMicrotasks();
}

describe('PollingInformerSource under a DynamicController', () => {
  it('routes what a poll changed to the instances that watch it, and nothing for an unchanged poll', async () => {
    const api = new ReadingsApi();
    const clock = new FakeClock();
    api.set('r1', 'thermo', 20);
    api.set('r2', 'hygro', 40);
    const h = await start(api, clock);
    expect(t!.controller.informer(READINGS)!.list()).toHaveLength(2);

    const before = h.count();
    await nextPoll(clock);
    await flushMicrotasks();
    expect(h.count()).toBe(before);

    api.set('r1', 'thermo', 21); // an update, for thermo
    api.set('r3', 'hygro', 41); // an add, for hygro
    await nextPoll(clock);
    await t!.waitFor(() => h.count() === before + 2);
    expect(h.keys().slice(before).sort()).toEqual(['lab/hygro', 'lab/thermo']);

    api.readings.delete('r2'); // a delete, for hygro
    await nextPoll(clock);
    await t!.waitFor(() => h.count() === before + 3);
    expect(h.keys().at(-1)).toBe('lab/hygro');
    expect(t!.controller.informer(READINGS)!.get({ namespace: 'lab', name: 'r2' })).toBeUndefined();
  });

  it('reports a failing poll in the informer health and recovers at the next good one', async () => {
    const api = new ReadingsApi();
    const clock = new FakeClock();
    api.set('r1', 'thermo', 20);
    await start(api, clock);
    const informer = t!.controller.informer(READINGS)!;
    const relists = informer.health().relists;
    api.down = true;
    await nextPoll(clock);
    expect(informer.health().failing).toMatchObject({ cause: '503 readings unavailable', consecutive: 1 });
    api.down = false;
    await nextPoll(clock);
    // Each good poll is a complete list: a relist for the engine.
    expect(informer.health()).toMatchObject({ synced: true, failing: undefined, relists: relists + 1 });
  });

  it('stops polling once nothing watches the readings', async () => {
    const api = new ReadingsApi();
    const clock = new FakeClock();
    await start(api, clock);
    await t!.controller.deregister(SENSORS);
    await t!.waitFor(() => t!.controller.informer(READINGS) === undefined);
    const polls = api.polls;
    await nextPoll(clock);
    await nextPoll(clock);
    expect(api.polls).toBe(polls);
  });

  it('refuses an interval that is not positive', () => {
    expect(() => new PollingInformerSource({ list: () => Promise.resolve([]), intervalMs: 0 })).toThrow(/intervalMs must be > 0, got 0/);
  });
});
