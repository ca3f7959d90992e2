import { describe, expect, it } from '@jest/globals';
import type { WatchEvent } from '../index.js';
import { FakeWatchManager } from './FakeWatchManager.js';

const gvr = { group: '', version: 'v1', resource: 'configmaps' };

describe('FakeWatchManager', () => {
  it('tracks owners per GVR and stops the informer when the last owner releases it', async () => {
    const watchManager = new FakeWatchManager();
    await watchManager.ensureWatch(gvr, 'a');
    await watchManager.ensureWatch(gvr, 'b');
    const informer = watchManager.getInformer(gvr)!;
    expect(informer.hasSynced()).toBe(true);
    expect(watchManager.owners(gvr)).toEqual(['a', 'b']);
    watchManager.releaseWatch(gvr, 'a');
    expect(informer.isStopped()).toBe(false);
    watchManager.releaseWatch(gvr, 'b');
    expect(informer.isStopped()).toBe(true);
    expect(watchManager.activeWatchCount()).toBe(0);
    expect(watchManager.calls.map((c) => `${c.op}:${c.ownerId}`)).toEqual(['ensure:a', 'ensure:b', 'release:a', 'release:b']);
  });

  it('rejects ensureWatch for a GVR told to fail, with the error as cause, and after shutdown', async () => {
    const watchManager = new FakeWatchManager();
    const cause = new Error('forbidden');
    watchManager.failEnsure(gvr, cause);
    await expect(watchManager.ensureWatch(gvr, 'a')).rejects.toMatchObject({ cause });
    expect(watchManager.owners(gvr)).toEqual([]);
    watchManager.failEnsure(gvr, undefined);
    await watchManager.ensureWatch(gvr, 'a');
    watchManager.shutdown();
    expect(watchManager.isShutDown()).toBe(true);
    await expect(watchManager.ensureWatch(gvr, 'a')).rejects.toThrow(/shut down/);
  });

  it('passes emitted events to onEvent', () => {
    const seen: WatchEvent[] = [];
    const watchManager = new FakeWatchManager((e) => void seen.push(e));
    const event: WatchEvent = { type: 'add', gvr, namespace: 'ns', name: 'a', labels: {} };
    watchManager.emit(event);
    expect(seen).toEqual([event]);
  });
});
