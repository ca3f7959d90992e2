import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { AccessLog, sharedConnectionPool } from '@protean/transport';
import { permissionsUsed, type PermissionsUsed } from './permissionsUsed.js';
import { controllerAccesses } from './controllerAccesses.testkit.js';

const EXPECTED: PermissionsUsed = {
  resources: [
    {
      group: '',
      resource: 'configmaps',
      verbs: [
        { verb: 'list', namespaces: [''], denied: [] },
        { verb: 'watch', namespaces: [''], denied: [] },
        { verb: 'create', namespaces: ['demo'], denied: [] },
        { verb: 'patch', namespaces: ['demo', 'other'], denied: ['other'] },
      ],
    },
    { group: '', resource: 'events', verbs: [{ verb: 'create', namespaces: ['demo'], denied: [] }] },
    { group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews', verbs: [{ verb: 'create', namespaces: [''], denied: [] }] },
    {
      group: 'coordination.k8s.io',
      resource: 'leases',
      verbs: [
        { verb: 'get', namespaces: ['ctl'], denied: [] },
        { verb: 'create', namespaces: ['ctl'], denied: [] },
        { verb: 'update', namespaces: ['ctl'], denied: [] },
      ],
    },
    {
      group: 'demo.protean.dev',
      resource: 'webapps',
      verbs: [
        { verb: 'list', namespaces: [''], denied: [] },
        { verb: 'watch', namespaces: [''], denied: [] },
        { verb: 'patch', namespaces: ['demo'], denied: [] },
      ],
    },
    {
      group: 'demo.protean.dev',
      resource: 'webapps',
      subresource: 'status',
      verbs: [{ verb: 'update', namespaces: ['demo'], denied: [] }],
    },
  ],
  nonResourceUrls: [
    { path: '/apis/demo.protean.dev/v1', verbs: ['get'], denied: [], grantedToEveryone: true },
    { path: '/version', verbs: ['get'], denied: [], grantedToEveryone: true },
  ],
};

describe('permissionsUsed', () => {
  it('groups the accesses per resource and subresource, with the verbs in RBAC order and their namespaces', () => {
    expect(permissionsUsed(controllerAccesses())).toEqual(EXPECTED);
  });

  it('reads the same from the access log, its entries, and the JSON of /statusz/permissions', () => {
    const log = controllerAccesses();
    expect(permissionsUsed(log.entries())).toEqual(EXPECTED);
    const json = JSON.parse(JSON.stringify({ accesses: log.entries() })) as { accesses: [] };
    expect(permissionsUsed(json)).toEqual(EXPECTED);
  });

  it("reads a KubeConfig's shared connection pool, and a pool given directly", () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const pool = sharedConnectionPool(kc);
    pool.accessLog.record('GET', '/api/v1/namespaces/a/secrets/s', 403);
    const expected: PermissionsUsed = {
      resources: [{ group: '', resource: 'secrets', verbs: [{ verb: 'get', namespaces: ['a'], denied: ['a'] }] }],
      nonResourceUrls: [],
    };
    expect(permissionsUsed(kc)).toEqual(expected);
    expect(permissionsUsed(pool)).toEqual(expected);
  });

  it('reports list wherever a streaming list was made (the informers fall back to LIST), marked as implied, unless turned off', () => {
    const log = new AccessLog();
    log.record('GET', '/api/v1/namespaces/a/secrets?watch=true&sendInitialEvents=true&allowWatchBookmarks=true', 200);
    // A plain watch (a lease's, an informer's after its list) needs no list.
    log.record('GET', '/api/v1/configmaps?watch=1', 200);
    log.record('GET', '/api/v1/namespaces/b/configmaps?limit=500', 200);
    expect(permissionsUsed(log).resources).toEqual([
      {
        group: '',
        resource: 'configmaps',
        verbs: [
          { verb: 'list', namespaces: ['b'], denied: [] },
          { verb: 'watch', namespaces: [''], denied: [] },
        ],
      },
      {
        group: '',
        resource: 'secrets',
        verbs: [
          { verb: 'list', namespaces: ['a'], denied: [], impliedBy: 'watch' },
          { verb: 'watch', namespaces: ['a'], denied: [] },
        ],
      },
    ]);
    expect(permissionsUsed(log, { listWithWatch: false }).resources[1]?.verbs).toEqual([{ verb: 'watch', namespaces: ['a'], denied: [] }]);
  });

  it('names what it accepts when given something else', () => {
    expect(() => permissionsUsed({} as never)).toThrow(/expected a KubeConfig, a KubeConnectionPool, an AccessLog or \{ accesses/);
  });
});
