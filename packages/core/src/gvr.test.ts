import { describe, expect, it } from '@jest/globals';
import { gvrEquals, gvrKey, namespacedNameKey, parseGvrKey, parseNamespacedNameKey } from './gvr.js';

describe('gvrKey', () => {
  it('keeps the empty core group so distinct GVRs never share a key', () => {
    expect(gvrKey({ group: '', version: 'v1', resource: 'configmaps' })).toBe('/v1/configmaps');
    expect(gvrKey({ group: 'apps', version: 'v1', resource: 'deployments' })).toBe('apps/v1/deployments');
  });

  it('round-trips through parseGvrKey', () => {
    const gvr = { group: 'demo.protean.dev', version: 'v1alpha1', resource: 'webapps' };
    expect(parseGvrKey(gvrKey(gvr))).toEqual(gvr);
    expect(gvrEquals(parseGvrKey(gvrKey(gvr)), gvr)).toBe(true);
  });

  it('rejects a malformed key and names it', () => {
    expect(() => parseGvrKey('apps/deployments')).toThrow('"apps/deployments"');
    expect(() => parseGvrKey('apps/deployments')).toThrow(`e.g. "apps/v1/deployments", or "/v1/configmaps" for the core group (group '')`);
    expect(() => parseGvrKey('v1/configmaps')).toThrow('for the core group write "/v1/configmaps"');
    expect(() => parseGvrKey('apps/deployments')).not.toThrow('write "/apps/deployments"');
    expect(() => parseGvrKey('a//c')).toThrow(TypeError);
  });
});

describe('namespacedNameKey', () => {
  it('formats namespaced and cluster-scoped names as client-go does', () => {
    expect(namespacedNameKey({ namespace: 'default', name: 'a' })).toBe('default/a');
    expect(namespacedNameKey({ namespace: '', name: 'node-1' })).toBe('node-1');
    expect(parseNamespacedNameKey('default/a')).toEqual({ namespace: 'default', name: 'a' });
    expect(parseNamespacedNameKey('node-1')).toEqual({ namespace: '', name: 'node-1' });
  });
});
