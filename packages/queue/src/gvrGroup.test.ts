import { describe, expect, it } from '@jest/globals';
import type { ObjectIdentifiers } from '@protean/core';
import { gvrGroup } from './gvrGroup.js';

describe('gvrGroup', () => {
  it('groups a DynamicController work item by its parent GVR key', () => {
    const item: ObjectIdentifiers = { gvr: { group: 'apps.example.com', version: 'v1', resource: 'webapps' }, namespace: 'ns', name: 'a' };
    expect(gvrGroup(item)).toBe('apps.example.com/v1/webapps');
    expect(gvrGroup({ gvr: { group: '', version: 'v1', resource: 'configmaps' }, namespace: '', name: 'b' })).toBe('/v1/configmaps');
  });

  it.each([
    ['a string', 'ns/name'],
    ['null', null],
    ['undefined', undefined],
    ['an object without gvr', { namespace: 'ns', name: 'a' }],
    ['a gvr that is a string', { gvr: 'apps/v1/deployments' }],
    ['a gvr with a missing field', { gvr: { group: 'apps', version: 'v1' } }],
    ['a gvr with a number field', { gvr: { group: 'apps', version: 1, resource: 'deployments' } }],
  ])('puts %s in the shared group ""', (_what, item) => {
    expect(gvrGroup(item)).toBe('');
  });
});
