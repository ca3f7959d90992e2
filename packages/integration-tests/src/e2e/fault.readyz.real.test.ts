import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { gvrKey } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { instrumentContainer, type MetricsServer, type ProteanMetrics } from '@protean/metrics';
import { defineCrd } from './crdLifecycle.js';
import { E2E_GROUP, WIDGETS } from './kinds.js';
import { startRealController, type RealController } from './startRealController.js';

/*
 * /readyz tells the truth about a registered parent's watch: revoking the
 * controller's RBAC on the real server makes its informer fail, /readyz
 * names the GVR once the grace period has passed, and it recovers when
 * access returns. /healthz stays up: an outage shorter than the liveness
 * grace period is no reason to restart.
 */

const USER = 'readyz-user';
const BINDING = 'e2e-readyz-widgets-reader';
const GRACE_MS = 2_000;
const CONVERGE = { timeoutMs: 60_000, intervalMs: 100 };

let api: KubeApiServer;
let rc: RealController;
let metrics: ProteanMetrics;
let server: MetricsServer;

function rbac(): RbacAuthorizationV1Api {
  return api.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
}

async function grant(): Promise<void> {
  await rbac().createClusterRoleBinding({
    body: {
      metadata: { name: BINDING },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: BINDING },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
    },
  });
}

async function get(path: string): Promise<[number, string]> {
  const res = await fetch(`${server.url}${path}`);
  return [res.status, await res.text()];
}

beforeAll(async () => {
  api = await startKubeApiServer();
  await defineCrd(api.kubeConfig, WIDGETS);
  await rbac().createClusterRole({
    body: {
      metadata: { name: BINDING },
      rules: [{ apiGroups: [E2E_GROUP], resources: [WIDGETS.gvr.resource], verbs: ['get', 'list', 'watch'] }],
    },
  });
  await grant();
  rc = startRealController({
    kubeConfig: api.kubeConfigFor(USER),
    // Watches end every 1-2 s, so a revoked permission shows within seconds; refusals retried within a second.
    informer: { minWatchTimeoutSeconds: 1, maxWatchTimeoutSeconds: 2, shortWatchMs: 200, notServedMaxBackoffMs: 1_000 },
    configure: (container) => {
      metrics = instrumentContainer(container, { processMetrics: false, health: { readinessGraceMs: GRACE_MS } });
    },
  });
  server = await metrics.serve();
});

afterAll(async () => {
  await server?.stop();
  await rc?.stop();
  await api?.stop();
});

describe('/readyz while a registered parent loses its watch', () => {
  it('fails naming the GVR after the grace period once RBAC is revoked, stays live, and recovers when access returns', async () => {
    const key = gvrKey(WIDGETS.gvr);
    // The authorizer learns about the binding through its own informers: retry until it allows the list.
    await waitFor(
      async () => {
        try {
          await rc.controller.register(WIDGETS.gvr, async () => {});
          return true;
        } catch {
          return false;
        }
      },
      { ...CONVERGE, message: `register of ${key} as ${USER}` },
    );
    await waitFor(async () => (await get('/readyz'))[0] === 200, { ...CONVERGE, message: '/readyz 200 after the sync' });

    await rbac().deleteClusterRoleBinding({ name: BINDING });
    let body = '';
    await waitFor(
      async () => {
        [, body] = await get('/readyz');
        return body.includes('[-]parent-informers-healthy failed');
      },
      { ...CONVERGE, message: '/readyz to report the lost watch' },
    );
    expect(body).toContain('[+]parent-informers-synced ok');
    expect(body).toMatch(
      new RegExp(`parent-informers-healthy failed: ${key.replace(/[./]/g, '\\$&')}: failing for \\d+ s \\(\\d+ in a row\\): .*403`),
    );
    expect((await get('/readyz'))[0]).toBe(503);
    expect((await get('/healthz'))[0]).toBe(200);
    const status = JSON.parse((await get('/statusz/informers'))[1]) as { informers: Array<Record<string, unknown>> };
    expect(status.informers).toEqual([
      expect.objectContaining({
        gvr: key,
        parent: true,
        synced: true,
        healthy: false,
        down: false,
        failing: expect.objectContaining({ status: 403 }),
      }),
    ]);

    await grant();
    await waitFor(async () => (await get('/readyz'))[0] === 200, { ...CONVERGE, message: '/readyz 200 once access returns' });
    const recovered = JSON.parse((await get('/statusz/informers'))[1]) as { informers: Array<Record<string, unknown>> };
    expect(recovered.informers).toEqual([expect.objectContaining({ gvr: key, healthy: true, relists: expect.any(Number) })]);
    // JSON leaves out an undefined outage.
    expect(recovered.informers[0]).not.toHaveProperty('failing');
    expect(recovered.informers[0]!['relists']).toBeGreaterThanOrEqual(1);
  });
});
