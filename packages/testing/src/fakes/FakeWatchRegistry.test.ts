import { describe, expect, it } from '@jest/globals';
import type { WatchEvent } from '@protean/core';
import { FakeWatchRegistry } from './FakeWatchRegistry.js';

const gvr = { group: '', version: 'v1', resource: 'configmaps' };

describe('FakeWatchRegistry', () => {
  it('tracks owners per GVR and stops the informer when the last owner releases it', async () => {
    const registry = new FakeWatchRegistry();
    await registry.ensureWatch(gvr, 'a');
    await registry.ensureWatch(gvr, 'b');
    const informer = registry.getInformer(gvr)!;
    expect(informer.hasSynced()).toBe(true);
    expect(registry.owners(gvr)).toEqual(['a', 'b']);
    registry.releaseWatch(gvr, 'a');
    expect(informer.isStopped()).toBe(false);
    registry.releaseWatch(gvr, 'b');
    expect(informer.isStopped()).toBe(true);
    expect(registry.activeWatchCount()).toBe(0);
    expect(registry.calls.map((c) => `${c.op}:${c.ownerId}`)).toEqual(['ensure:a', 'ensure:b', 'release:a', 'release:b']);
  });

  it('rejects ensureWatch for a GVR told to fail, with the error as cause, and after shutdown', async () => {
    const registry = new FakeWatchRegistry();
    const cause = new Error('forbidden');
    registry.failEnsure(gvr, cause);
    await expect(registry.ensureWatch(gvr, 'a')).rejects.toMatchObject({ cause });
    expect(registry.owners(gvr)).toEqual([]);
    registry.failEnsure(gvr, undefined);
    await registry.ensureWatch(gvr, 'a');
    registry.shutdown();
    expect(registry.isShutDown()).toBe(true);
    await expect(registry.ensureWatch(gvr, 'a')).rejects.toThrow(/shut down/);
  });

  it('passes emitted events to onEvent', () => {
    const seen: WatchEvent[] = [];
    const registry = new FakeWatchRegistry((e) => void seen.push(e));
    const event: WatchEvent = { type: 'add', gvr, namespace: 'ns', name: 'a', labels: {} };
    registry.emit(event);
    expect(seen).toEqual([event]);
  });
});
