import { describe, expect, it } from '@jest/globals';
import { resourcePath } from './resourcePath.js';

describe('resourcePath', () => {
  it('puts the core group under /api and others under /apis', () => {
    expect(resourcePath({ group: '', version: 'v1', resource: 'configmaps' })).toBe('/api/v1/configmaps');
    expect(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments' })).toBe('/apis/apps/v1/deployments');
  });

  it('narrows to one namespace only when asked', () => {
    expect(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments' }, 'team-a')).toBe('/apis/apps/v1/namespaces/team-a/deployments');
    expect(resourcePath({ group: '', version: 'v1', resource: 'namespaces' }, '')).toBe('/api/v1/namespaces');
  });
});
