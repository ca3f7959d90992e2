import { describe, expect, it } from '@jest/globals';
import type { WatchEvent } from '../index.js';
import { FakeInformerError } from './FakeInformerError.js';
import { FakeWatchManager } from './FakeWatchManager.js';
import { track } from './track.js';

const gvr = { group: '', version: 'v1', resource: 'configmaps' };
const other = { group: 'apps', version: 'v1', resource: 'deployments' };

describe('FakeWatchManager', () => {
  it('tracks owners per GVR and stops the informer when the last owner releases it', async () => {
    const watchManager = new FakeWatchManager();
    await watchManager.ensureWatch(gvr, 'a');
    await watchManager.ensureWatch(gvr, 'b');
    const informer = watchManager.getInformer(gvr)!;
    expect(informer.hasSynced()).toBe(true);
    expect(watchManager.owners(gvr)).toEqual(['a', 'b']);
    watchManager.releaseWatch(gvr, 'a');
    expect(watchManager.getInformer(gvr)).toBe(informer);
    watchManager.releaseWatch(gvr, 'b');
    expect(watchManager.getInformer(gvr)).toBeUndefined();
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

  it('passes emitted events to the onEvent of its options', () => {
    const seen: WatchEvent[] = [];
    const watchManager = new FakeWatchManager({ onEvent: (e) => void seen.push(e) });
    const event: WatchEvent = { type: 'delete', gvr, namespace: 'ns', name: 'a', labels: {} };
    watchManager.emit(event);
    expect(seen).toEqual([event]);
  });

  it('in manual mode holds each sync until resolveSync or rejectSync, owning the GVR meanwhile', async () => {
    const watchManager = new FakeWatchManager({ sync: 'manual' });
    const a = track(watchManager.ensureWatch(gvr, 'a'));
    const b = track(watchManager.ensureWatch(gvr, 'b'));
    const c = track(watchManager.ensureWatch(other, 'a'));
    await Promise.resolve();
    expect([a.state, b.state, c.state]).toEqual(['pending', 'pending', 'pending']);
    expect([watchManager.pendingSyncs(), watchManager.pendingSyncs(gvr)]).toEqual([3, 2]);
    expect(watchManager.isWatching(gvr, 'b')).toBe(true);
    expect(watchManager.activeWatchCount()).toBe(2);
    expect(watchManager.getInformer(gvr)!.hasSynced()).toBe(false);

    watchManager.resolveSync(gvr); // the oldest: a
    const cause = new Error('forbidden');
    watchManager.rejectSync(gvr, cause);
    await Promise.resolve();
    expect([a.state, b.state, b.error]).toEqual(['resolved', 'rejected', cause]);
    expect(watchManager.getInformer(gvr)!.hasSynced()).toBe(true);
    expect(watchManager.owners(gvr)).toEqual(['a']);
    expect(() => watchManager.resolveSync(gvr)).toThrow(FakeInformerError);

    watchManager.shutdown();
    await Promise.resolve();
    expect(c.state).toBe('rejected');
    expect(c.error).toBeInstanceOf(FakeInformerError);
    expect(watchManager.pendingSyncs()).toBe(0);
  });

  it('fails only the next sync of a GVR told to failNext, with that very error, dropping only that owner', async () => {
    const watchManager = new FakeWatchManager();
    await watchManager.ensureWatch(gvr, 'a');
    const cause = new Error('timed out');
    watchManager.failNext(gvr, cause);
    const failing = watchManager.ensureWatch(gvr, 'b');
    expect(watchManager.isWatching(gvr, 'b')).toBe(true);
    await expect(failing).rejects.toBe(cause);
    expect(watchManager.isWatching(gvr, 'b')).toBe(false);
    expect(watchManager.owners(gvr)).toEqual(['a']);
    await expect(watchManager.ensureWatch(gvr, 'b')).resolves.toBeUndefined();
  });

  it('answers isWatching per owner or for any owner, and counts calls per kind and GVR', async () => {
    const watchManager = new FakeWatchManager();
    await watchManager.ensureWatch(gvr, 'a');
    await watchManager.ensureWatch(other, 'a');
    watchManager.releaseWatch(other, 'a');
    expect([watchManager.isWatching(gvr), watchManager.isWatching(gvr, 'a'), watchManager.isWatching(gvr, 'b')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(watchManager.isWatching(other)).toBe(false);
    expect([watchManager.count('ensure'), watchManager.count('ensure', other), watchManager.count('release', gvr)]).toEqual([2, 1, 0]);
  });

  it('records a release by a non-owner as an anomaly, but not after shutdown', async () => {
    const watchManager = new FakeWatchManager();
    await watchManager.ensureWatch(gvr, 'a');
    watchManager.releaseWatch(gvr, 'b');
    watchManager.releaseWatch(other, 'a');
    expect(watchManager.anomalies).toEqual(['release of /v1/configmaps by non-owner b', 'release of apps/v1/deployments by non-owner a']);
    expect(watchManager.owners(gvr)).toEqual(['a']);
    watchManager.shutdown();
    watchManager.releaseWatch(gvr, 'a');
    expect(watchManager.anomalies).toHaveLength(2);
  });
});
