import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { ParentSyncError, type GroupVersionResource } from '@protean/core';
import { LogRecorder, waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { instrumentContainer, type MetricsServer, type ProteanMetrics } from '@protean/metrics';
import { compareWithRbac, permissionsUsed } from '@protean/permissions';
import { KubeConnectionPool, sharedConnectionPool, type KubeHttpRequest } from '@protean/transport';
import { startRealController, type RealController } from '../e2e/startRealController.js';

/*
 * The access log against kube-apiserver's RBAC authorizer: what it records
 * for each request shape is what the server checked, refusals carry the
 * authorizer's message, and a server-side apply that would create is
 * refused as `create`.
 */

const USER = 'observed';
const ROLE = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: observed, namespace: demo }
rules:
  - { apiGroups: [""], resources: [configmaps], verbs: [get, list, watch, patch] }
  - { apiGroups: [""], resources: [secrets], verbs: [watch] }
  - { apiGroups: [""], resources: [namespaces], verbs: [get] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: observed, namespace: demo }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: observed }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: ${USER} }]
`;

let api: KubeApiServer;
let pool: KubeConnectionPool;

beforeAll(async () => {
  api = await startKubeApiServer();
  const core = api.kubeConfig.makeApiClient(CoreV1Api);
  for (const name of ['demo', 'other']) await core.createNamespace({ body: { metadata: { name } } });
  await core.createNamespacedConfigMap({ namespace: 'demo', body: { metadata: { name: 'existing' }, data: { a: '1' } } });
  const rbac = api.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: 'demo',
    body: {
      metadata: { name: 'observed' },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'patch'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['watch'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: 'demo',
    body: {
      metadata: { name: 'observed' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'observed' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
    },
  });
  pool = new KubeConnectionPool(api.kubeConfigFor(USER));
  // The authorizer learns about new bindings through its own informers.
  await waitFor(async () => (await pool.send(get('/api/v1/namespaces/demo/configmaps/existing'))).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 100,
    message: `RBAC to let ${USER} get ConfigMaps in demo`,
  });
  pool.accessLog.clear();
}, 120_000);

afterAll(async () => {
  pool?.close();
  await api?.stop();
});

const get = (path: string): KubeHttpRequest => ({ method: 'GET', path, headers: { accept: 'application/json' } });
const apply = (namespace: string, name: string): KubeHttpRequest => ({
  method: 'PATCH',
  path: `/api/v1/namespaces/${namespace}/configmaps/${name}?fieldManager=observed`,
  headers: { 'content-type': 'application/apply-patch+yaml', accept: 'application/json' },
  body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { b: '2' } }),
});

/** Opens a watch, reads its head, and cancels it. */
async function openWatch(path: string): Promise<number> {
  const abort = new AbortController();
  const res = await pool.request({ ...get(path), signal: abort.signal });
  abort.abort(new Error('done'));
  res.body.on('error', () => undefined);
  return res.status;
}

describe('the access log against kube-apiserver RBAC', () => {
  it('records what the authorizer checked, refusals with its message, and an apply refused its create as create', async () => {
    expect((await pool.send(get('/api/v1/namespaces/demo/configmaps?limit=500'))).status).toBe(200);
    // A streaming list is a watch to the authorizer: secrets grant watch only, and it is allowed.
    expect(
      await openWatch(
        '/api/v1/namespaces/demo/secrets?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      ),
    ).toBe(200);
    expect((await pool.send(get('/api/v1/namespaces/demo/secrets?limit=500'))).status).toBe(403);
    expect((await pool.send(apply('demo', 'existing'))).status).toBe(200);
    expect((await pool.send(apply('demo', 'fresh'))).status).toBe(403);
    expect((await pool.send(get('/api/v1/namespaces/other/configmaps/x'))).status).toBe(403);
    // A Role in demo grants get on the namespace object demo itself.
    expect((await pool.send(get('/api/v1/namespaces/demo'))).status).toBe(200);
    expect((await pool.send(get('/api/v1/namespaces/other'))).status).toBe(403);
    expect((await pool.send(get('/version'))).status).toBe(200);
    expect((await pool.send(get('/apis'))).status).toBe(200);

    const seen = pool.accessLog.entries().map((e) => [e.key, e.status, e.denied]);
    expect(seen).toEqual([
      ['list||configmaps||demo', 200, false],
      ['watch||secrets||demo', 200, false],
      ['list||secrets||demo', 403, true],
      ['patch||configmaps||demo', 403, false],
      ['create||configmaps||demo', 403, true],
      ['get||configmaps||other', 403, true],
      ['get||namespaces||demo', 200, false],
      ['get||namespaces||other', 403, true],
      ['nonResource|get|/version', 200, false],
      ['nonResource|get|/apis', 200, false],
    ]);
    const messages = Object.fromEntries(pool.accessLog.denied().map((e) => [e.key, e.message]));
    expect(messages['create||configmaps||demo']).toContain(
      `User "${USER}" cannot create resource "configmaps" in API group "" in the namespace "demo"`,
    );
    expect(messages['get||configmaps||other']).toContain(
      `User "${USER}" cannot get resource "configmaps" in API group "" in the namespace "other"`,
    );

    // Held to the Role that was applied (bound to a ServiceAccount here): what it lacks is missing and was refused; what was not used is unused.
    const asServiceAccount = ROLE.replace(
      `{ apiGroup: rbac.authorization.k8s.io, kind: User, name: ${USER} }`,
      '{ kind: ServiceAccount, name: observed }',
    );
    const result = compareWithRbac(permissionsUsed(pool), asServiceAccount, { serviceAccount: { namespace: 'demo', name: 'observed' } });
    expect(
      result.missing.map((m) => (m.kind === 'resource' ? `${m.verb} ${m.resource} ${m.namespace ?? '*'} ${m.denied}` : m.path)),
    ).toEqual(['get configmaps other true', 'create configmaps demo true', 'get namespaces other true', 'list secrets demo true']);
    expect(result.unused.map((u) => `${u.verb} ${u.resource}`)).toEqual(['get configmaps', 'watch configmaps']);
    expect(result.excluded).toEqual(['get path /apis', 'get path /version']);
  });
});

describe('a controller instrumented with its connection pool, against kube-apiserver RBAC', () => {
  const secrets: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
  let rc: RealController | undefined;
  let metricsServer: MetricsServer | undefined;

  afterAll(async () => {
    await rc?.stop();
    await metricsServer?.stop();
  });

  it('names the refused informer list in /readyz and one warn line, and an info line once a ClusterRole grants it', async () => {
    const kubeConfig = api.kubeConfigFor(USER); // its own object: the controller's pool, not the first test's
    const logs = new LogRecorder('info');
    let metrics: ProteanMetrics | undefined;
    rc = startRealController({
      kubeConfig,
      logger: logs.logger,
      configure: (container) => {
        metrics = instrumentContainer(container, { processMetrics: false, connectionPool: sharedConnectionPool(kubeConfig) });
      },
    });
    metricsServer = await metrics!.serve();
    const readyz = async (): Promise<[number, string]> => {
      const res = await fetch(`${metricsServer!.url}/readyz?verbose`);
      return [res.status, await res.text()];
    };
    const lines = (): (string | undefined)[] =>
      logs.records.filter((r) => logs.bindingsOf(r)['component'] === 'permissions').map((r) => `${r.level} ${r.msg}`);

    // The user may watch Secrets in demo only: the parent's cluster-wide LIST (informers page by default) is refused.
    const err = await rc.controller.register(secrets, async () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParentSyncError);
    const [status, body] = await readyz();
    expect(status).toBe(503);
    expect(body).toContain('[-]permissions failed: forbidden: list secrets cluster-wide (403)');
    expect(lines()).toEqual(['40 forbidden: list secrets cluster-wide (403)']);

    const rbac = api.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRole({
      body: { metadata: { name: 'observed-secrets' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] }] },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'observed-secrets' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'observed-secrets' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
      },
    });
    // Registering again after the failure window, once the authorizer has seen the binding.
    await waitFor(
      async () => {
        try {
          await rc!.controller.register(secrets, async () => {});
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: 30_000, intervalMs: 500, message: 'the secrets parent to register once the ClusterRole is bound' },
    );
    expect(await readyz()).toEqual([200, expect.stringContaining('[+]permissions ok')]);
    expect(lines()).toEqual(['40 forbidden: list secrets cluster-wide (403)', '30 allowed again: list secrets cluster-wide']);
  }, 60_000);
});
