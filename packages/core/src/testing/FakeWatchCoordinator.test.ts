import { describe, expect, it } from '@jest/globals';
import { Everything, type WatchEvent, type WatchRequest } from '../index.js';
import { EnqueueRecorder } from './EnqueueRecorder.js';
import { FakeWatchCoordinator } from './FakeWatchCoordinator.js';

const webapps = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const databases = { group: 'demo.protean.dev', version: 'v1', resource: 'databases' };
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const a = { namespace: 'ns', name: 'a' };
const b = { namespace: 'ns', name: 'b' };

const scalar = (nodeId: string): WatchRequest => ({ nodeId, gvr: configmaps, namespace: 'ns', name: nodeId });
const collection = (nodeId: string): WatchRequest => ({ nodeId, gvr: configmaps, namespace: 'ns', selector: Everything });

describe('FakeWatchCoordinator', () => {
  it('records routed events and removals in call order, and enqueues nothing by itself', () => {
    const enqueued = new EnqueueRecorder();
    const coordinator = new FakeWatchCoordinator({ enqueue: enqueued.enqueue });
    const event: WatchEvent = { type: 'add', gvr: configmaps, namespace: 'ns', name: 'x', labels: {} };
    coordinator.routeEvent(event);
    coordinator.removeInstance(webapps, a);
    coordinator.removeParentGVR(databases);
    expect(coordinator.calls.map((c) => c.op)).toEqual(['routeEvent', 'removeInstance', 'removeParentGVR']);
    expect(coordinator.routedEvents()).toEqual([event]);
    expect(coordinator.removedInstances()).toEqual(['ns/a']);
    expect(coordinator.callsOf('removeParentGVR')).toEqual([{ op: 'removeParentGVR', parentGVR: databases }]);
    expect(enqueued.calls).toEqual([]);
  });

  it('calls the enqueue it was built with on enqueue, as a watched child changing would', () => {
    const enqueued = new EnqueueRecorder();
    const coordinator = new FakeWatchCoordinator({ enqueue: enqueued.enqueue });
    coordinator.enqueue(webapps, a);
    expect(enqueued.instances(webapps)).toEqual([a]);
  });

  it('hands out recording passes: what was declared, done and how the pass ended', async () => {
    const coordinator = new FakeWatchCoordinator();
    const pass = coordinator.beginPass(webapps, a);
    await expect(pass.watch(scalar('cm'))).resolves.toBeUndefined();
    expect(pass.ended()).toBe(false);
    pass.end(true);
    expect(pass.watches).toEqual([scalar('cm')]);
    expect(pass.endCalls).toEqual([true]);
    expect(pass.ended()).toBe(true);
    expect(coordinator.passesOf(a)).toEqual([pass]);
    expect(coordinator.passesOf(b)).toEqual([]);
    expect(coordinator.calls).toEqual([
      { op: 'beginPass', parentGVR: webapps, instance: a },
      { op: 'endPass', parentGVR: webapps, instance: a, commit: true },
    ]);
  });

  it('commits what a pass declared on end(true), possibly nothing, and keeps the previous set on end(false)', async () => {
    const coordinator = new FakeWatchCoordinator();
    const first = coordinator.beginPass(webapps, a);
    await first.watch(scalar('cm'));
    await first.watch(collection('all'));
    expect(coordinator.instanceWatchCount()).toBe(1); // an open cycle counts
    first.end(true);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 1 });

    const failed = coordinator.beginPass(webapps, a);
    await failed.watch(scalar('other'));
    failed.end(false);
    expect(coordinator.requestsOf(webapps, a).map((r) => r.nodeId)).toEqual(['cm', 'all']);

    coordinator.beginPass(webapps, a).end(true);
    expect(coordinator.instanceWatchCount()).toBe(0);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
  });

  it('leaves a pass whose cycle the handler settled itself, unless something was declared after', async () => {
    const coordinator = new FakeWatchCoordinator();
    const setup = coordinator.beginPass(webapps, a);
    await setup.watch(scalar('cm'));
    setup.end(true);

    const settledKeep = coordinator.beginPass(webapps, a);
    await settledKeep.watch(scalar('new'));
    settledKeep.done(false);
    settledKeep.end(true);
    expect(settledKeep.doneCalls).toEqual([false]);
    expect(coordinator.requestsOf(webapps, a).map((r) => r.nodeId)).toEqual(['cm']);

    const declaredAfter = coordinator.beginPass(webapps, a);
    declaredAfter.done(true);
    await declaredAfter.watch(scalar('late'));
    declaredAfter.end(true);
    expect(coordinator.requestsOf(webapps, a).map((r) => r.nodeId)).toEqual(['late']);
  });

  it('shares one cycle between the watchers and passes of an instance', async () => {
    const coordinator = new FakeWatchCoordinator();
    const watcher = coordinator.forInstance(webapps, a);
    await watcher.watch(scalar('from-watcher'));
    const pass = coordinator.beginPass(webapps, a);
    await pass.watch(scalar('from-pass'));
    pass.end(true);
    expect(coordinator.watchers).toEqual([watcher]);
    expect(watcher.watches).toEqual([scalar('from-watcher')]);
    expect(coordinator.requestsOf(webapps, a).map((r) => r.nodeId)).toEqual(['from-watcher', 'from-pass']);
  });

  it('forgets an instance on removeInstance, and every instance of a parent on removeParentGVR', async () => {
    const coordinator = new FakeWatchCoordinator();
    for (const [gvr, instance] of [
      [webapps, a],
      [webapps, b],
      [databases, a],
    ] as const) {
      const pass = coordinator.beginPass(gvr, instance);
      await pass.watch(scalar('cm'));
      pass.end(true);
    }
    expect(coordinator.instanceWatchCount()).toBe(3);
    coordinator.removeInstance(webapps, a);
    expect(coordinator.requestsOf(webapps, a)).toEqual([]);
    expect(coordinator.instanceWatchCount()).toBe(2);
    coordinator.removeParentGVR(webapps);
    expect(coordinator.instanceWatchCount()).toBe(1);
    expect(coordinator.requestsOf(databases, a)).toHaveLength(1);
  });
});
