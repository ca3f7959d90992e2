import { describe, expect, it } from '@jest/globals';
import { InvalidGroupVersionResourceError, InvalidObjectNameError } from '@protean/core';
import { resourcePath } from './resourcePath.js';

describe('resourcePath', () => {
  it('puts the core group under /api and others under /apis', () => {
    expect(resourcePath({ group: '', version: 'v1', resource: 'configmaps' })).toBe('/api/v1/configmaps');
    expect(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments' })).toBe('/apis/apps/v1/deployments');
  });

  it('narrows to one namespace only when asked', () => {
    expect(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments' }, 'team-a')).toBe(
      '/apis/apps/v1/namespaces/team-a/deployments',
    );
    expect(resourcePath({ group: '', version: 'v1', resource: 'namespaces' }, '')).toBe('/api/v1/namespaces');
  });

  it.each([
    [{ group: '', version: 'v1', resource: 'namespaces/default/configmaps' }, 'resource'],
    [{ group: '', version: 'v1', resource: '..' }, 'resource'],
    [{ group: '', version: 'v1', resource: 'ConfigMaps' }, 'resource'],
    [{ group: '', version: 'v1', resource: '' }, 'resource'],
    [{ group: 'a/b', version: 'v1', resource: 'things' }, 'group'],
    [{ group: '', version: 'v1/..', resource: 'configmaps' }, 'version'],
  ])('refuses to build a path for %j', (gvr, field) => {
    expect(() => resourcePath(gvr)).toThrow(InvalidGroupVersionResourceError);
    expect(() => resourcePath(gvr)).toThrow(`${field} ${JSON.stringify(gvr[field as keyof typeof gvr])}`);
  });

  it.each(['Default', 'a/b', '..', 'a%2Fb'])('refuses the namespace %j', (namespace) => {
    expect(() => resourcePath({ group: '', version: 'v1', resource: 'configmaps' }, namespace)).toThrow(InvalidObjectNameError);
    expect(() => resourcePath({ group: '', version: 'v1', resource: 'configmaps' }, namespace)).toThrow(JSON.stringify(namespace));
  });
});
