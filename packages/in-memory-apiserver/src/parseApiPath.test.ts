import { describe, expect, it } from '@jest/globals';
import { parseApiPath } from './parseApiPath.js';

const namespaced = (_g: string, _v: string, r: string): boolean => r === 'configmaps' || r === 'widgets';

describe('parseApiPath', () => {
  it('parses namespaced, all-namespace and cluster-scoped resource paths', () => {
    expect(parseApiPath('/api/v1/namespaces/ns/configmaps/x', namespaced)).toEqual({
      kind: 'resource',
      group: '',
      version: 'v1',
      resource: 'configmaps',
      namespace: 'ns',
      name: 'x',
      watchPath: false,
    });
    expect(parseApiPath('/apis/example.com/v1/namespaces/ns/widgets/w/status', namespaced)).toEqual({
      kind: 'resource',
      group: 'example.com',
      version: 'v1',
      resource: 'widgets',
      namespace: 'ns',
      name: 'w',
      subresource: 'status',
      watchPath: false,
    });
    expect(parseApiPath('/api/v1/configmaps', namespaced)).toEqual({
      kind: 'resource',
      group: '',
      version: 'v1',
      resource: 'configmaps',
      watchPath: false,
    });
    expect(parseApiPath('/api/v1/watch/namespaces/ns/configmaps', namespaced)).toMatchObject({
      resource: 'configmaps',
      namespace: 'ns',
      watchPath: true,
    });
  });

  it('reads /namespaces/{name}/status as the namespace status, not a collection', () => {
    expect(parseApiPath('/api/v1/namespaces/team/status', namespaced)).toEqual({
      kind: 'resource',
      group: '',
      version: 'v1',
      resource: 'namespaces',
      name: 'team',
      subresource: 'status',
      watchPath: false,
    });
  });

  it('recognises discovery, health and unknown paths', () => {
    expect(parseApiPath('/', namespaced)).toEqual({ kind: 'root' });
    expect(parseApiPath('/api', namespaced)).toEqual({ kind: 'api' });
    expect(parseApiPath('/apis', namespaced)).toEqual({ kind: 'apis' });
    expect(parseApiPath('/apis/example.com', namespaced)).toEqual({ kind: 'group', group: 'example.com' });
    expect(parseApiPath('/apis/example.com/v1', namespaced)).toEqual({ kind: 'groupVersion', group: 'example.com', version: 'v1' });
    expect(parseApiPath('/readyz', namespaced)).toEqual({ kind: 'health' });
    expect(parseApiPath('/metrics', namespaced)).toEqual({ kind: 'unknown' });
    expect(parseApiPath('/api/v1/a/b/c/d', namespaced)).toEqual({ kind: 'unknown' });
  });
});
