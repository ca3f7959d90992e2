import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { FakeClock, LogRecorder } from '@protean/core/testing';
import { InMemoryApiServer, type KubeObject as StoredObject } from '@protean/in-memory-apiserver';
import { EVENTS, EventRecorder, type EventRecorderOptions } from './EventRecorder.js';
import { KubeClient } from './KubeClient.js';
import type { KubeObject } from './KubeObject.js';

const widgets: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'widgets' };

describe('EventRecorder', () => {
  let server: InMemoryApiServer;
  let client: KubeClient;
  let n = 0;
  const recorders: EventRecorder[] = [];

  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    server.registerResource({ ...widgets, kind: 'Widget', namespaced: true });
    client = new KubeClient({ kubeConfig: server.kubeConfig(), retry: { retries: 0 } });
  });
  afterEach(() => {
    for (const r of recorders.splice(0)) r.stop();
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  function recorder(options: Partial<EventRecorderOptions> = {}): { recorder: EventRecorder; clock: FakeClock } {
    const clock = new FakeClock();
    const r = new EventRecorder({
      client,
      reportingController: 'example.com/widget-controller',
      reportingInstance: 'widget-controller-0',
      clock,
      now: () => new Date(Date.UTC(2026, 11, 1, 10, 0, 0) + clock.now()),
      ...options,
    });
    recorders.push(r);
    return { recorder: r, clock };
  }

  const widget = (): KubeObject => {
    const w = server.create(widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: `w${++n}`, namespace: 'default' },
      spec: {},
    });
    return w as unknown as KubeObject;
  };
  const eventsAbout = (w: KubeObject): StoredObject[] =>
    server.list(EVENTS, 'default').filter((e) => (e['regarding'] as { uid?: string }).uid === w.metadata?.uid);

  it('writes an events.k8s.io/v1 Event naming the object, the reporter, the reason and the action', async () => {
    const { recorder: r } = recorder();
    const w = widget();
    r.event(w, { type: 'Normal', reason: 'ConfigMapApplied', action: 'Apply', note: 'ConfigMap w-cm holds the text' });
    await r.flush();
    const [event, ...more] = eventsAbout(w);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace: 'default', name: expect.stringMatching(new RegExp(`^${w.metadata?.name}\\.[0-9a-f]+$`)) },
      eventTime: '2026-12-01T10:00:00.000000Z',
      reportingController: 'example.com/widget-controller',
      reportingInstance: 'widget-controller-0',
      type: 'Normal',
      reason: 'ConfigMapApplied',
      action: 'Apply',
      note: 'ConfigMap w-cm holds the text',
      regarding: { apiVersion: 'example.com/v1', kind: 'Widget', name: w.metadata?.name, namespace: 'default', uid: w.metadata?.uid },
    });
    expect(event!['series']).toBeUndefined();
  });

  it('aggregates a burst of 1,000 identical events into one Event with a series of 1,000', async () => {
    const { recorder: r } = recorder();
    const w = widget();
    const before = server.requests().length;
    for (let i = 0; i < 1000; i++) r.event(w, { type: 'Warning', reason: 'BackendBusy', action: 'Reconcile', note: 'try again' });
    await r.flush();
    const events = eventsAbout(w);
    expect(events).toHaveLength(1);
    expect(events[0]!['series']).toEqual({ count: 1000, lastObservedTime: '2026-12-01T10:00:00.000000Z' });
    // Two writes: the create, then one patch carrying everything that arrived meanwhile.
    const writes = server
      .requests()
      .slice(before)
      .filter((q) => q.path.startsWith('/apis/events.k8s.io/v1/'));
    expect(writes.map((q) => q.method)).toEqual(['POST', 'PATCH']);
  });

  it('keeps events with another reason, action or type apart', async () => {
    const { recorder: r } = recorder();
    const w = widget();
    r.event(w, { type: 'Normal', reason: 'A', action: 'Apply' });
    r.event(w, { type: 'Normal', reason: 'B', action: 'Apply' });
    r.event(w, { type: 'Normal', reason: 'A', action: 'Delete' });
    r.event(w, { type: 'Warning', reason: 'A', action: 'Apply' });
    r.event(w, { type: 'Normal', reason: 'A', action: 'Apply' });
    await r.flush();
    const events = eventsAbout(w);
    expect(events).toHaveLength(4);
    expect(events.map((e) => (e['series'] as { count: number } | undefined)?.count ?? 1).sort()).toEqual([1, 1, 1, 2]);
  });

  it("limits each object's writes with a token bucket: a burst, then one more per refill period", async () => {
    const { recorder: r, clock } = recorder({ burst: 3, refillMs: 60_000 });
    const w = widget();
    const other = widget();
    for (let i = 0; i < 5; i++) r.event(w, { type: 'Normal', reason: `R${i}`, action: 'Apply' });
    r.event(other, { type: 'Normal', reason: 'R0', action: 'Apply' });
    await r.flush();
    expect(eventsAbout(w).map((e) => e['reason'])).toEqual(['R0', 'R1', 'R2']);
    expect(eventsAbout(other)).toHaveLength(1);
    await clock.advanceAsync(60_000);
    r.event(w, { type: 'Normal', reason: 'R9', action: 'Apply' });
    r.event(w, { type: 'Normal', reason: 'R10', action: 'Apply' });
    await r.flush();
    expect(
      eventsAbout(w)
        .map((e) => e['reason'])
        .sort(),
    ).toEqual(['R0', 'R1', 'R2', 'R9']);
  });

  it('starts a new Event once a series has been idle for seriesIdleMs', async () => {
    const { recorder: r, clock } = recorder({ seriesIdleMs: 360_000 });
    const w = widget();
    r.event(w, { type: 'Normal', reason: 'Synced', action: 'Reconcile' });
    r.event(w, { type: 'Normal', reason: 'Synced', action: 'Reconcile' });
    await r.flush();
    await clock.advanceAsync(360_001);
    r.event(w, { type: 'Normal', reason: 'Synced', action: 'Reconcile' });
    await r.flush();
    const events = eventsAbout(w);
    expect(events.map((e) => (e['series'] as { count: number } | undefined)?.count ?? 1).sort()).toEqual([1, 2]);
  });

  it('never throws and never blocks the caller: a failing API server only costs a debug line', async () => {
    const logs = new LogRecorder('debug');
    const { recorder: r } = recorder({ logger: logs.logger });
    const w = widget();
    server.faults.failNext(1, 500);
    expect(r.event(w, { type: 'Warning', reason: 'Oops', action: 'Reconcile' })).toBeUndefined();
    await r.flush();
    expect(eventsAbout(w)).toEqual([]);
    expect(logs.find('writing an event failed')).toHaveLength(1);
    // The next occurrence starts over.
    r.event(w, { type: 'Warning', reason: 'Oops', action: 'Reconcile' });
    await r.flush();
    expect(eventsAbout(w)).toHaveLength(1);
  });

  it('drops events after stop()', async () => {
    const { recorder: r } = recorder();
    const w = widget();
    r.stop();
    r.event(w, { type: 'Normal', reason: 'Late', action: 'Apply' });
    await r.flush();
    expect(eventsAbout(w)).toEqual([]);
  });
});
