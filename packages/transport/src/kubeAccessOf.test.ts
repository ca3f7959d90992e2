import { describe, expect, it } from '@jest/globals';
import { describeKubeAccess, kubeAccessKey, kubeAccessOf, type KubeAccess } from './kubeAccessOf.js';
import { keyOfParsed, parseKubeAccess } from './parseKubeAccess.js';

const r = (verb: string, group: string, resource: string, extra: { subresource?: string; namespace?: string } = {}): KubeAccess =>
  ({ kind: 'resource', verb, group, resource, ...extra }) as KubeAccess;
const n = (verb: string, path: string): KubeAccess => ({ kind: 'nonResource', verb, path }) as KubeAccess;

describe('kubeAccessOf', () => {
  it.each<[string, string, KubeAccess]>([
    // Core group, namespaced.
    ['GET', '/api/v1/namespaces/demo/configmaps/a', r('get', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps', r('list', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?labelSelector=app%3Dx&limit=500', r('list', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=5', r('watch', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?resourceVersion=5&watch=1', r('watch', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?watch=false', r('list', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?watch=FALSE', r('list', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?watch=0', r('list', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?watch=yes', r('watch', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?watch', r('watch', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?watch=true&watch=false', r('watch', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?sendInitialEvents=true&watch=1', r('watch', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/api/v1/namespaces/demo/configmaps?allowWatchBookmarks=true', r('list', '', 'configmaps', { namespace: 'demo' })],
    ['POST', '/api/v1/namespaces/demo/configmaps', r('create', '', 'configmaps', { namespace: 'demo' })],
    ['PUT', '/api/v1/namespaces/demo/configmaps/a', r('update', '', 'configmaps', { namespace: 'demo' })],
    ['PATCH', '/api/v1/namespaces/demo/configmaps/a?fieldManager=x&force=true', r('patch', '', 'configmaps', { namespace: 'demo' })],
    ['DELETE', '/api/v1/namespaces/demo/configmaps/a', r('delete', '', 'configmaps', { namespace: 'demo' })],
    ['DELETE', '/api/v1/namespaces/demo/configmaps?labelSelector=a', r('deletecollection', '', 'configmaps', { namespace: 'demo' })],
    ['POST', '/api/v1/namespaces/demo/events', r('create', '', 'events', { namespace: 'demo' })],
    // All namespaces, cluster-scoped.
    ['GET', '/api/v1/configmaps?watch=true', r('watch', '', 'configmaps')],
    ['GET', '/api/v1/configmaps?limit=500', r('list', '', 'configmaps')],
    ['GET', '/api/v1/nodes/n1', r('get', '', 'nodes')],
    // Named groups, subresources.
    ['GET', '/apis/apps/v1/namespaces/demo/deployments', r('list', 'apps', 'deployments', { namespace: 'demo' })],
    [
      'PUT',
      '/apis/apps/v1/namespaces/demo/deployments/web/scale',
      r('update', 'apps', 'deployments', { subresource: 'scale', namespace: 'demo' }),
    ],
    [
      'PATCH',
      '/apis/demo.protean.dev/v1/namespaces/demo/webapps/shop/status',
      r('patch', 'demo.protean.dev', 'webapps', { subresource: 'status', namespace: 'demo' }),
    ],
    ['GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/w.x', r('get', 'apiextensions.k8s.io', 'customresourcedefinitions')],
    ['POST', '/api/v1/namespaces/demo/pods/p/eviction', r('create', '', 'pods', { subresource: 'eviction', namespace: 'demo' })],
    ['POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', r('create', 'authorization.k8s.io', 'selfsubjectaccessreviews')],
    [
      'PUT',
      '/apis/coordination.k8s.io/v1/namespaces/ctl/leases/leader',
      r('update', 'coordination.k8s.io', 'leases', { namespace: 'ctl' }),
    ],
    // The legacy watch prefix.
    ['GET', '/api/v1/watch/namespaces/demo/configmaps', r('watch', '', 'configmaps', { namespace: 'demo' })],
    ['GET', '/apis/apps/v1/watch/deployments', r('watch', 'apps', 'deployments')],
    // The namespaces resource itself, and its own subresources.
    ['GET', '/api/v1/namespaces', r('list', '', 'namespaces')],
    ['GET', '/api/v1/namespaces?watch=true', r('watch', '', 'namespaces')],
    ['POST', '/api/v1/namespaces', r('create', '', 'namespaces')],
    ['GET', '/api/v1/namespaces/demo', r('get', '', 'namespaces', { namespace: 'demo' })],
    ['DELETE', '/api/v1/namespaces/demo', r('delete', '', 'namespaces', { namespace: 'demo' })],
    ['PUT', '/api/v1/namespaces/demo/status', r('update', '', 'namespaces', { subresource: 'status', namespace: 'demo' })],
    ['PUT', '/api/v1/namespaces/demo/finalize', r('update', '', 'namespaces', { subresource: 'finalize', namespace: 'demo' })],
    // A trailing slash is the same path.
    ['GET', '/api/v1/namespaces/demo/configmaps/', r('list', '', 'configmaps', { namespace: 'demo' })],
    // Non-resource URLs.
    ['GET', '/version', n('get', '/version')],
    ['GET', '/version?timeout=32s', n('get', '/version')],
    ['GET', '/api', n('get', '/api')],
    ['GET', '/api/v1', n('get', '/api/v1')],
    ['GET', '/apis', n('get', '/apis')],
    ['GET', '/apis/apps', n('get', '/apis/apps')],
    ['GET', '/apis/apps/v1', n('get', '/apis/apps/v1')],
    ['GET', '/openapi/v3/apis/apps/v1', n('get', '/openapi/v3/apis/apps/v1')],
    ['GET', '/healthz', n('get', '/healthz')],
    ['POST', '/logs', n('post', '/logs')],
    ['DELETE', '/x', n('delete', '/x')],
    // Malformed paths are non-resource URLs, never a guessed resource.
    ['GET', '', n('get', '')],
    ['GET', '/', n('get', '/')],
    ['GET', 'api/v1/configmaps', n('get', 'api/v1/configmaps')],
    ['GET', '/api/v1//configmaps', n('get', '/api/v1//configmaps')],
    ['GET', '/api/v1/namespaces/demo/configmaps/a/status/extra', n('get', '/api/v1/namespaces/demo/configmaps/a/status/extra')],
    ['GET', '/apis//v1/configmaps', n('get', '/apis//v1/configmaps')],
    ['GET', '/apis/apps/v1/namespaces//deployments', n('get', '/apis/apps/v1/namespaces//deployments')],
    ['GET', '/?watch=true', n('get', '/')],
  ])('%s %s', (method, path, expected) => {
    expect(kubeAccessOf(method, path)).toEqual(expected);
    // The access log's key, built from the parse without an object, is the access's key.
    expect(keyOfParsed(parseKubeAccess(method, path))).toBe(kubeAccessKey(expected));
  });

  it('keys equal accesses equally and different ones differently', () => {
    const a = kubeAccessOf('GET', '/api/v1/namespaces/demo/configmaps/a');
    const b = kubeAccessOf('GET', '/api/v1/namespaces/demo/configmaps/b?resourceVersion=1');
    expect(kubeAccessKey(a)).toBe(kubeAccessKey(b));
    const keys = [
      a,
      kubeAccessOf('GET', '/api/v1/namespaces/other/configmaps/a'),
      kubeAccessOf('GET', '/api/v1/configmaps/a'),
      kubeAccessOf('GET', '/api/v1/namespaces/demo/configmaps/a/status'),
      kubeAccessOf('GET', '/apis/x/v1/namespaces/demo/configmaps/a'),
      kubeAccessOf('PUT', '/api/v1/namespaces/demo/configmaps/a'),
      kubeAccessOf('GET', '/version'),
    ].map(kubeAccessKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('describes an access in words', () => {
    expect(describeKubeAccess(kubeAccessOf('PATCH', '/api/v1/namespaces/demo/configmaps/a'))).toBe('patch configmaps in namespace demo');
    expect(describeKubeAccess(kubeAccessOf('PUT', '/apis/demo.protean.dev/v1/namespaces/d/webapps/w/status'))).toBe(
      'update webapps.demo.protean.dev/status in namespace d',
    );
    expect(describeKubeAccess(kubeAccessOf('GET', '/api/v1/configmaps?watch=1'))).toBe('watch configmaps cluster-wide');
    expect(describeKubeAccess(kubeAccessOf('GET', '/version'))).toBe('get path /version');
  });
});
