import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import type { GroupVersionResource } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { instrumentContainer, type ConnectionPoolView, type MetricsServer, type ProteanMetrics } from '@protean/metrics';
import { compareWithRbac, permissionsUsed, toRbacYaml } from '@protean/permissions';
import { createTestController, LogRecorder, type TestController } from '@protean/testing';
import { sharedConnectionPool, type KubeConnectionPool } from '@protean/transport';
import { KubernetesInformerSource } from '@protean/watch-manager';

/*
 * The whole path on one connection pool: a controller whose informers and
 * client share the KubeConfig's pool (as in production), instrumented with
 * that pool; the API server refuses its writes for a while. /readyz, the log
 * and /statusz/permissions name the refusal; permissionsUsed afterwards gives
 * RBAC that matches what the controller used both ways.
 */

const secrets: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

// The real pool fits metrics' view of it, by shape.
const asView = (pool: KubeConnectionPool): ConnectionPoolView => pool;

describe('observed permissions, from the connection to the RBAC', () => {
  let server: InMemoryApiServer | undefined;
  let t: TestController<KubernetesInformerSource> | undefined;
  let metricsServer: MetricsServer | undefined;
  let client: KubeClient | undefined;

  afterEach(async () => {
    await t?.dispose();
    client?.close();
    await metricsServer?.stop();
    await server?.stop();
    t = client = metricsServer = server = undefined;
  });

  it('names a refused write in /readyz and one log line while it lasts, then gives RBAC equal to what was used', async () => {
    server = await InMemoryApiServer.start();
    const kubeConfig = server.kubeConfig(); // one object: informers, client and metrics share its pool
    server.create(secrets, { metadata: { name: 'shop', namespace: 'demo' } });
    let refusing = true;
    server.faults.failNext(1_000, 403, { match: (r) => refusing && r.method === 'PATCH' && r.path.includes('/configmaps/') });
    const logs = new LogRecorder('info');
    let metrics: ProteanMetrics | undefined;
    const kube = (client = new KubeClient({ kubeConfig, fieldManager: 'shop-controller', retry: { retries: 0 } }));
    t = createTestController({
      logFailures: false,
      logger: logs.logger,
      source: new KubernetesInformerSource({ kubeConfig, logger: logs.logger }),
      config: { minRetryDelayMs: 20, maxRetryDelayMs: 200, queueMaxRetries: 1_000 },
      configure: (container) => {
        metrics = instrumentContainer(container, { processMetrics: false, connectionPool: asView(sharedConnectionPool(kubeConfig)) });
      },
    });
    await t.start();
    await t.register(secrets, async (req, ctx) => {
      await kube.apply(
        configmaps,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${req.name}-env`, namespace: req.namespace }, data: { k: 'v' } },
        { signal: ctx.signal },
      );
      await ctx.watcher.watch({ nodeId: 'env', gvr: configmaps, namespace: req.namespace, name: `${req.name}-env` });
    });
    metricsServer = await metrics!.serve();
    const readyz = async (): Promise<[number, string]> => {
      const res = await fetch(`${metricsServer!.url}/readyz?verbose`);
      return [res.status, await res.text()];
    };
    const patches = (): number => server!.requests().filter((r) => r.method === 'PATCH').length;

    // Refused, and retried: the check names it, the log says it once.
    await t.waitFor(() => patches() >= 3);
    const [status, body] = await readyz();
    expect(status).toBe(503);
    expect(body).toContain('[-]permissions failed: forbidden: patch configmaps in namespace demo ("forbidden")');
    const permissionLines = () =>
      logs.records.filter((r) => logs.bindingsOf(r)['component'] === 'permissions').map((r) => [r.level, r.msg]);
    expect(permissionLines()).toEqual([[40, 'forbidden: patch configmaps in namespace demo ("forbidden")']]);
    const json = (await (await fetch(`${metricsServer.url}/statusz/permissions`)).json()) as { denied: string[] };
    expect(json.denied).toEqual(['forbidden: patch configmaps in namespace demo ("forbidden")']);

    // Granted again: the next retry creates the ConfigMap, the check passes, one info line.
    refusing = false;
    await t.waitFor(async () => (await readyz())[0] === 200);
    expect((await readyz())[1]).toContain('[+]permissions ok');
    expect(permissionLines()).toEqual([
      [40, 'forbidden: patch configmaps in namespace demo ("forbidden")'],
      [30, 'allowed again: patch configmaps in namespace demo'],
    ]);

    // What it used: the parent and child informers cluster-wide, apply (patch, and create: the apply created it) in demo.
    // Each informer's watch follows its LIST: wait until both watches were answered.
    await t.waitFor(() => permissionsUsed(kubeConfig).resources.every((r) => r.verbs.some((v) => v.verb === 'watch')));
    const used = permissionsUsed(kubeConfig);
    expect(used.resources).toEqual([
      {
        group: '',
        resource: 'configmaps',
        verbs: [
          // The informers page LISTs (the default), then watch.
          { verb: 'list', namespaces: [''], denied: [] },
          { verb: 'watch', namespaces: [''], denied: [] },
          { verb: 'create', namespaces: ['demo'], denied: [] },
          { verb: 'patch', namespaces: ['demo'], denied: [] },
        ],
      },
      {
        group: '',
        resource: 'secrets',
        verbs: [
          { verb: 'list', namespaces: [''], denied: [] },
          { verb: 'watch', namespaces: [''], denied: [] },
        ],
      },
    ]);
    const rbac = toRbacYaml(used, { name: 'shop-controller', namespace: 'shop-system' });
    expect(compareWithRbac(used, rbac, { serviceAccount: { namespace: 'shop-system', name: 'shop-controller' } })).toMatchObject({
      missing: [],
      unused: [],
    });
    // One verb less in the shipped RBAC is named as missing.
    const short = rbac.replace(/( {6}- create\n)/, '');
    expect(compareWithRbac(used, short, { serviceAccount: { namespace: 'shop-system', name: 'shop-controller' } }).missing).toEqual([
      { kind: 'resource', verb: 'create', group: '', resource: 'configmaps', namespace: 'demo', denied: false },
    ]);
  });
});
