import { describe, expect, it } from '@jest/globals';
import { DeletedFinalStateUnknown, type PartialObjectMetadata, type ResourceEventHandler } from '../index.js';
import { FakeClock } from './FakeClock.js';
import { FakeInformer } from './FakeInformer.js';
import { FakeInformerError } from './FakeInformerError.js';
import { fakeObject } from './fakeObject.js';
import { FakeStatusError } from './FakeStatusError.js';

const gvr = { group: 'apps', version: 'v1', resource: 'deployments' };

type Seen = [string, ...unknown[]];

function recordingHandler(seen: Seen[]): ResourceEventHandler {
  return {
    onAdd: (obj, initial) => void seen.push(['add', obj.metadata.name, initial]),
    onUpdate: (o, n) => void seen.push(['update', o.metadata.generation, n.metadata.generation]),
    onDelete: (obj) => void seen.push(['delete', obj instanceof DeletedFinalStateUnknown ? `tombstone:${obj.key}` : obj.metadata.name]),
  };
}

function running(informer: FakeInformer): AbortController {
  const abort = new AbortController();
  informer.run(abort.signal);
  return abort;
}

describe('FakeInformer', () => {
  it('syncs on run by default, delivering the initial list as initial adds', () => {
    const listed = [fakeObject({ name: 'a', namespace: 'ns' })];
    const informer = new FakeInformer(gvr, { listObjects: () => listed });
    const seen: Seen[] = [];
    const reg = informer.addEventHandler(recordingHandler(seen));
    running(informer);
    expect(informer.hasSynced()).toBe(true);
    expect(reg.hasSynced()).toBe(true);
    expect(seen).toEqual([['add', 'a', true]]);
    expect(informer.list()).toEqual(listed);
    expect(informer.get({ namespace: 'ns', name: 'a' })).toBe(listed[0]);
  });

  it('stays unsynced until markSynced when autoSync is off', () => {
    const informer = new FakeInformer(gvr, { autoSync: false, listObjects: () => [fakeObject({ name: 'a' })] });
    const seen: Seen[] = [];
    const reg = informer.addEventHandler(recordingHandler(seen));
    running(informer);
    expect(informer.hasSynced()).toBe(false);
    expect(reg.hasSynced()).toBe(false);
    expect(seen).toEqual([]);
    informer.markSynced();
    expect(informer.hasSynced()).toBe(true);
    expect(reg.hasSynced()).toBe(true);
    expect(seen).toEqual([['add', 'a', true]]);
  });

  it('delivers pushed add, update and delete events synchronously, old and new on update', () => {
    const informer = new FakeInformer(gvr);
    const seen: Seen[] = [];
    informer.addEventHandler(recordingHandler(seen));
    running(informer);
    informer.add(fakeObject({ name: 'a', generation: 1 }));
    informer.update(fakeObject({ name: 'a', generation: 2 }));
    informer.delete({ namespace: '', name: 'a' });
    informer.add(fakeObject({ name: 'b', namespace: 'ns' }));
    informer.delete(fakeObject({ name: 'b', namespace: 'ns' }), { finalStateUnknown: true });
    expect(seen).toEqual([
      ['add', 'a', false],
      ['update', 1, 2],
      ['delete', 'a'],
      ['add', 'b', false],
      ['delete', 'tombstone:ns/b'],
    ]);
    expect(informer.list()).toEqual([]);
  });

  it('replays its cache to a handler added late, and stops delivering to a removed handler', () => {
    const informer = new FakeInformer(gvr);
    running(informer);
    informer.add(fakeObject({ name: 'a' }));
    const seen: Seen[] = [];
    const reg = informer.addEventHandler(recordingHandler(seen));
    // Synced already: the replay is not part of the initial list.
    expect(seen).toEqual([['add', 'a', false]]);
    expect(reg.hasSynced()).toBe(true);
    expect(informer.handlerCount()).toBe(1);
    informer.removeEventHandler(reg);
    informer.add(fakeObject({ name: 'b' }));
    expect(seen).toHaveLength(1);
    expect(informer.handlerCount()).toBe(0);
  });

  it('reports a sync failure through the watch error handler after run returns, and never syncs', async () => {
    const err = new FakeStatusError(404);
    const informer = new FakeInformer(gvr, { syncError: err });
    const reported: Error[] = [];
    informer.setWatchErrorHandler((e) => void reported.push(e));
    running(informer);
    expect(reported).toEqual([]);
    await Promise.resolve();
    expect(reported).toEqual([err]);
    expect(informer.hasSynced()).toBe(false);
  });

  it('fails a running informer at once with failSync, and refuses to fail a synced one', () => {
    const pending = new FakeInformer(gvr, { autoSync: false });
    const reported: Error[] = [];
    pending.setWatchErrorHandler((e) => void reported.push(e));
    running(pending);
    const err = new FakeStatusError(403);
    pending.failSync(err);
    expect(reported).toEqual([err]);
    expect(pending.reportedErrors).toEqual([err]);

    const synced = new FakeInformer(gvr);
    running(synced);
    expect(() => synced.failSync(err)).toThrow(FakeInformerError);
  });

  it('is stopped when its run signal aborts, and then ignores pushes', () => {
    const informer = new FakeInformer(gvr);
    const seen: Seen[] = [];
    informer.addEventHandler(recordingHandler(seen));
    const abort = running(informer);
    expect(informer.isStopped()).toBe(false);
    abort.abort();
    expect(informer.isStopped()).toBe(true);
    expect(informer.isRunning()).toBe(false);
    informer.add(fakeObject({ name: 'a' }));
    expect(seen).toEqual([]);
    expect(() => informer.run(new AbortController().signal)).toThrow(FakeInformerError);
  });

  it('replays every cached object as an update to itself on resync', () => {
    const informer = new FakeInformer(gvr);
    running(informer);
    const obj: PartialObjectMetadata = fakeObject({ name: 'a', generation: 3 });
    informer.add(obj);
    const seen: Seen[] = [];
    informer.addEventHandler(recordingHandler(seen));
    informer.resync();
    expect(seen).toEqual([
      ['add', 'a', false],
      ['update', 3, 3],
    ]);
  });

  it("flags a late handler's replay as initial list only while the informer has not synced", () => {
    const informer = new FakeInformer(gvr, { autoSync: false, listObjects: () => [fakeObject({ name: 'b' })] });
    running(informer);
    informer.add(fakeObject({ name: 'a' }));
    const early: Seen[] = [];
    informer.addEventHandler(recordingHandler(early));
    expect(early).toEqual([['add', 'a', true]]);
    informer.markSynced();
    expect(early).toEqual([
      ['add', 'a', true],
      ['add', 'b', true],
    ]);
    const late: Seen[] = [];
    informer.addEventHandler(recordingHandler(late));
    expect(late).toEqual([
      ['add', 'a', false],
      ['add', 'b', false],
    ]);
    informer.add(fakeObject({ name: 'c' }));
    expect(late.at(-1)).toEqual(['add', 'c', false]);
  });

  it('resyncs with the very object it caches, so old and new share a resourceVersion', () => {
    const informer = new FakeInformer(gvr);
    running(informer);
    informer.add(fakeObject({ name: 'a', resourceVersion: '7' }));
    const pairs: [PartialObjectMetadata, PartialObjectMetadata][] = [];
    informer.addEventHandler({ onUpdate: (o, n) => void pairs.push([o, n]) });
    informer.resync();
    expect(pairs).toHaveLength(1);
    expect(pairs[0]![0]).toBe(pairs[0]![1]);
    expect(pairs[0]![1].metadata.resourceVersion).toBe('7');
  });

  it('refuses to update or delete an object it does not hold, naming it', () => {
    const informer = new FakeInformer(gvr);
    running(informer);
    expect(() => informer.update(fakeObject({ name: 'ghost', namespace: 'ns' }))).toThrow(/ns\/ghost/);
    expect(() => informer.delete({ namespace: 'ns', name: 'ghost' })).toThrow(FakeInformerError);
  });

  it('reports health on its clock: an outage from the first reported error to the next event, relist or recover()', () => {
    const clock = new FakeClock();
    const informer = new FakeInformer(gvr, { clock });
    expect(informer.health()).toEqual({ synced: false, idleMs: undefined, relists: 0, failing: undefined });
    running(informer);
    clock.advance(1_000);
    expect(informer.health()).toEqual({ synced: true, idleMs: 1_000, relists: 0, failing: undefined });
    informer.reportWatchError(new FakeStatusError(403));
    clock.advance(500);
    informer.reportWatchError(new FakeStatusError(404));
    clock.advance(500);
    expect(informer.health().failing).toEqual({
      forMs: 1_000,
      consecutive: 2,
      cause: '404: the server could not find the requested resource',
      status: 404,
      reason: undefined,
      retryInMs: undefined,
    });
    informer.add(fakeObject({ name: 'a', namespace: 'ns' }));
    expect(informer.health()).toMatchObject({ idleMs: 0, failing: undefined });
    informer.reportWatchError(new FakeStatusError(500));
    informer.relisted();
    expect(informer.health()).toMatchObject({ relists: 1, failing: undefined });
  });

  it('hands out its current handlers, oldest first, so a test can call one after it was removed', () => {
    const informer = new FakeInformer(gvr);
    running(informer);
    const first: Seen[] = [];
    const second: Seen[] = [];
    const reg = informer.addEventHandler(recordingHandler(first));
    informer.addEventHandler(recordingHandler(second));
    const handlers = informer.handlers();
    expect(handlers).toHaveLength(2);
    informer.removeEventHandler(reg);
    expect(informer.handlers()).toEqual([handlers[1]]);
    handlers[0]!.onAdd?.(fakeObject({ name: 'late' }), false);
    expect(first).toEqual([['add', 'late', false]]);
    expect(second).toEqual([]);
  });
});
