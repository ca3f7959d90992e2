import { describe, expect, it } from '@jest/globals';
import { silentLogger, type WatchRegistry, type WatchRegistryDeps } from '@protean/core';
import { FakeInformerSource, FakeWatchRegistry } from '@protean/testing';
import { InformerCountProbe, type InformerChange } from './InformerCountProbe.js';
import { CONFIGMAPS, WEBAPP } from './kinds.js';

function probed(): { probe: InformerCountProbe; inner: FakeWatchRegistry; changes: InformerChange[]; registry: WatchRegistry } {
  const changes: InformerChange[] = [];
  const probe = new InformerCountProbe((c) => changes.push(c));
  const inner = new FakeWatchRegistry();
  const deps: WatchRegistryDeps = { source: new FakeInformerSource(), resyncPeriodMs: 0, onEvent: () => {}, logger: silentLogger() };
  const registry = probe.wrap(() => inner)(deps);
  return { probe, inner, changes, registry };
}

describe('InformerCountProbe', () => {
  it('reports an informer once when it starts and once when its last owner releases it', async () => {
    const { probe, registry, changes } = probed();

    await registry.ensureWatch(WEBAPP.gvr, 'parent');
    await registry.ensureWatch(CONFIGMAPS, 'coordinator');
    await registry.ensureWatch(CONFIGMAPS, 'someone-else');
    expect(probe.count()).toBe(2);
    expect(probe.gvrs()).toEqual(['/v1/configmaps', 'demo.protean.dev/v1alpha1/webapps']);

    registry.releaseWatch(CONFIGMAPS, 'coordinator');
    registry.releaseWatch(CONFIGMAPS, 'someone-else');

    expect(changes).toEqual([
      { gvr: WEBAPP.gvr, change: 'started', active: 1 },
      { gvr: CONFIGMAPS, change: 'started', active: 2 },
      { gvr: CONFIGMAPS, change: 'stopped', active: 1 },
    ]);
    expect(probe.gvrs()).toEqual(['demo.protean.dev/v1alpha1/webapps']);
  });

  it('passes a failed ensureWatch through and reports nothing for it', async () => {
    const { registry, inner, changes } = probed();
    inner.failEnsure(WEBAPP.gvr, new Error('not served'));

    await expect(registry.ensureWatch(WEBAPP.gvr, 'parent')).rejects.toThrow('not served');

    expect(changes).toEqual([]);
  });

  it('counts 0 before the controller has built its registry', () => {
    expect(new InformerCountProbe().count()).toBe(0);
  });
});
