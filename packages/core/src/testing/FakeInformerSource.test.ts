import { describe, expect, it } from '@jest/globals';
import { FakeInformerSource } from './FakeInformerSource.js';

const gvr = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const other = { group: '', version: 'v1', resource: 'configmaps' };

describe('FakeInformerSource', () => {
  it('throws the error of failNextCreate from the next createInformer only, creating nothing', () => {
    const source = new FakeInformerSource();
    const err = new Error('no such resource kind');
    source.failNextCreate(err);
    expect(() => source.createInformer(other, { resyncPeriodMs: 0 })).toThrow(err);
    expect(source.informers()).toEqual([]);
    const informer = source.createInformer(gvr, { resyncPeriodMs: 0 });
    expect(source.informers()).toEqual([informer]);
  });

  it('names the newest informer of a GVR, or of any GVR', () => {
    const source = new FakeInformerSource();
    expect(source.informer()).toBeUndefined();
    const a = source.createInformer(gvr, { resyncPeriodMs: 0 });
    const b = source.createInformer(other, { resyncPeriodMs: 0 });
    expect(source.informer(gvr)).toBe(a);
    expect(source.informer(other)).toBe(b);
    expect(source.informer()).toBe(b);
  });
});
