import { describe, expect, it } from '@jest/globals';
import { silentLogger, type WatchManager, type WatchManagerDeps } from '@protean/core';
import { FakeInformerSource, FakeWatchManager } from '@protean/testing';
import { InformerCountProbe, type InformerChange } from './InformerCountProbe.js';
import { CONFIGMAPS, WEBAPP } from './kinds.js';

function probed(): { probe: InformerCountProbe; inner: FakeWatchManager; changes: InformerChange[]; watchManager: WatchManager } {
  const changes: InformerChange[] = [];
  const probe = new InformerCountProbe((c) => changes.push(c));
  const inner = new FakeWatchManager();
  const deps: WatchManagerDeps = { source: new FakeInformerSource(), resyncPeriodMs: 0, onEvent: () => {}, logger: silentLogger() };
  const watchManager = probe.wrap(() => inner)(deps);
  return { probe, inner, changes, watchManager };
}

describe('InformerCountProbe', () => {
  it('reports an informer once when it starts and once when its last owner releases it', async () => {
    const { probe, watchManager, changes } = probed();

    await watchManager.ensureWatch(WEBAPP.gvr, 'parent');
    await watchManager.ensureWatch(CONFIGMAPS, 'coordinator');
    await watchManager.ensureWatch(CONFIGMAPS, 'someone-else');
    expect(probe.count()).toBe(2);
    expect(probe.gvrs()).toEqual(['/v1/configmaps', 'demo.protean.dev/v1alpha1/webapps']);

    watchManager.releaseWatch(CONFIGMAPS, 'coordinator');
    watchManager.releaseWatch(CONFIGMAPS, 'someone-else');

    expect(changes).toEqual([
      { gvr: WEBAPP.gvr, change: 'started', active: 1 },
      { gvr: CONFIGMAPS, change: 'started', active: 2 },
      { gvr: CONFIGMAPS, change: 'stopped', active: 1 },
    ]);
    expect(probe.gvrs()).toEqual(['demo.protean.dev/v1alpha1/webapps']);
  });

  it('passes a failed ensureWatch through and reports nothing for it', async () => {
    const { watchManager, inner, changes } = probed();
    inner.failEnsure(WEBAPP.gvr, new Error('not served'));

    await expect(watchManager.ensureWatch(WEBAPP.gvr, 'parent')).rejects.toThrow('not served');

    expect(changes).toEqual([]);
  });

  it('counts 0 before the controller has built its watch manager', () => {
    expect(new InformerCountProbe().count()).toBe(0);
  });
});
