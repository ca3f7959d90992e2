import { describe, expect, it } from '@jest/globals';
import { FakeInformerSource } from './FakeInformerSource.js';

const gvr = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const other = { group: '', version: 'v1', resource: 'configmaps' };

describe('FakeInformerSource', () => {
  it('throws the error of failNextCreate from the next createListWatch only, creating nothing', () => {
    const source = new FakeInformerSource();
    const err = new Error('no such resource kind');
    source.failNextCreate(err);
    expect(() => source.createListWatch(other)).toThrow(err);
    expect(source.informers()).toEqual([]);
    const informer = source.createListWatch(gvr);
    expect(source.informers()).toEqual([informer]);
  });

  it('names the newest informer of a GVR, or of any GVR', () => {
    const source = new FakeInformerSource();
    expect(source.informer()).toBeUndefined();
    const a = source.createListWatch(gvr);
    const b = source.createListWatch(other);
    expect(source.informer(gvr)).toBe(a);
    expect(source.informer(other)).toBe(b);
    expect(source.informer()).toBe(b);
  });
});
