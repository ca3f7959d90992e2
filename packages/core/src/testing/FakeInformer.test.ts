import { describe, expect, it } from '@jest/globals';
import { FakeInformer } from './FakeInformer.js';
import { fakeObject } from './fakeObject.js';

const gvr = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

describe('FakeInformer', () => {
  it('holds what a test puts in it and reports the health it is given', () => {
    const informer = new FakeInformer(gvr, { synced: false });
    expect(informer.hasSynced()).toBe(false);
    informer.add(fakeObject({ namespace: 'ns', name: 'a', resourceVersion: '1' }));
    informer.update(fakeObject({ namespace: 'ns', name: 'a', resourceVersion: '2' }));
    expect(informer.get({ namespace: 'ns', name: 'a' })?.metadata.resourceVersion).toBe('2');
    informer.markSynced();
    informer.setHealth({ relists: 3 });
    expect(informer.health()).toEqual({ synced: true, idleMs: undefined, relists: 3, failing: undefined });
    informer.delete({ namespace: 'ns', name: 'a' });
    expect(informer.list()).toEqual([]);
    expect(() => informer.delete({ namespace: 'ns', name: 'a' })).toThrow(/ns\/a.*not in its cache/);
    expect(() => informer.update(fakeObject({ name: 'b' }))).toThrow(/cannot update b/);
  });
});
