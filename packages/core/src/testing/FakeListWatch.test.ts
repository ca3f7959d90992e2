import { describe, expect, it } from '@jest/globals';
import type { ListWatchSink, PartialObjectMetadata } from '../index.js';
import { flushMicrotasks } from './FakeClock.js';
import { FakeInformer } from './FakeInformer.js';
import { FakeInformerSource } from './FakeInformerSource.js';
import { FakeListWatch } from './FakeListWatch.js';
import { fakeObject } from './fakeObject.js';
import { FakeStatusError } from './FakeStatusError.js';

const gvr = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

/** A sink that records every call, in order, as `<call> <names>`. */
function recordingSink(): ListWatchSink & { calls: string[] } {
  const calls: string[] = [];
  const cache = new FakeInformer(gvr);
  const names = (objs: Iterable<PartialObjectMetadata>): string => [...objs].map((o) => o.metadata.name).join(',');
  return {
    calls,
    cache,
    replace: (objs) => calls.push(`replace ${names(objs)}`),
    beginList: () => calls.push('beginList'),
    endList: () => calls.push('endList'),
    upsert: (o) => calls.push(`upsert ${o.metadata.name}@${o.metadata.resourceVersion ?? ''}`),
    remove: (o) => calls.push(`remove ${o.metadata.name}`),
    retain: () => calls.push('retain'),
    progressed: () => calls.push('progressed'),
    failed: (err) => calls.push(`failed ${err.message}`),
    switchSource: () => calls.push('switchSource'),
  };
}

describe('FakeListWatch', () => {
  it('delivers its list when run, then events; nothing before the list', () => {
    const objects = [fakeObject({ name: 'a' })];
    const lw = new FakeListWatch(gvr, { autoSync: false, listObjects: () => objects });
    const sink = recordingSink();
    lw.run(sink, new AbortController().signal);
    lw.add(fakeObject({ name: 'early' }));
    expect(sink.calls).toEqual([]);
    lw.markSynced();
    lw.add(fakeObject({ name: 'b', resourceVersion: '2' }));
    lw.update(fakeObject({ name: 'b', resourceVersion: '3' }));
    lw.delete(fakeObject({ name: 'b' }));
    lw.recover();
    lw.relisted();
    expect(sink.calls).toEqual(['replace a', 'upsert b@2', 'upsert b@3', 'remove b', 'progressed', 'replace a']);
    expect(lw.hasSynced()).toBe(true);
  });

  it('reports a sync failure after run returns, and lists nothing until markSynced', async () => {
    const lw = new FakeListWatch(gvr, { syncError: new FakeStatusError(404) });
    const sink = recordingSink();
    lw.run(sink, new AbortController().signal);
    expect(sink.calls).toEqual([]);
    await flushMicrotasks();
    expect(sink.calls).toEqual([expect.stringMatching(/^failed /)]);
    expect(lw.reportedErrors).toHaveLength(1);
    expect(lw.hasSynced()).toBe(false);
    lw.markSynced();
    expect(sink.calls.at(-1)).toBe('replace ');
    expect(() => lw.failSync(new Error('late'))).toThrow(/already synced/);
  });

  it('is dead once its run signal aborts: pushes are ignored', () => {
    const lw = new FakeListWatch(gvr);
    const sink = recordingSink();
    const abort = new AbortController();
    lw.run(sink, abort.signal);
    abort.abort();
    lw.add(fakeObject({ name: 'x' }));
    lw.reportWatchError(new Error('late'));
    expect(sink.calls).toEqual(['replace ']);
    expect(lw.isStopped()).toBe(true);
    expect(lw.isRunning()).toBe(false);
    expect(() => lw.run(sink, new AbortController().signal)).toThrow(/already run/);
  });

  it('finds a delete with finalStateUnknown by a relist, as after a broken watch', () => {
    const source = new FakeInformerSource();
    source.add(gvr, { name: 'a' });
    source.add(gvr, { name: 'b' });
    const lw = source.createListWatch(gvr);
    const sink = recordingSink();
    lw.run(sink, new AbortController().signal);
    source.delete(gvr, { namespace: '', name: 'a' }, { finalStateUnknown: true });
    source.delete(gvr, { namespace: '', name: 'b' });
    expect(sink.calls).toEqual(['replace a,b', 'replace b', 'remove b']);
  });
});
