import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { gvrKey, isNotFound, ParentSyncError, WatchForbiddenError, type Handler } from '@protean/core';
import { WatchUnavailableError } from '@protean/coordinator';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { causeChain, statusesInChain } from './causeChain.js';
import { defineCrd } from './crdLifecycle.js';
import { E2eCluster } from './E2eCluster.js';
import { CONFIGMAPS, E2E_GROUP, GADGETS, WIDGETS } from './kinds.js';
import { startRealController, type RealController } from './startRealController.js';

const USER = 'restricted';
const CONVERGE = { timeoutMs: 30_000, intervalMs: 100 };

let api: KubeApiServer;
let cluster: E2eCluster;
let rc: RealController;

/** Lets `USER` get, list and watch widgets, and nothing else (no gadgets, no ConfigMaps). */
async function grantWidgetsOnly(): Promise<void> {
  const rbac = api.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const name = 'e2e-widgets-reader';
  await rbac.createClusterRole({
    body: { metadata: { name }, rules: [{ apiGroups: [E2E_GROUP], resources: [WIDGETS.gvr.resource], verbs: ['get', 'list', 'watch'] }] },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
    },
  });
  // The authorizer learns about new bindings through its own informers.
  const asUser = api.kubeConfigFor(USER).makeApiClient(CustomObjectsApi);
  const { group, version, resource: plural } = WIDGETS.gvr;
  await waitFor(
    async () => {
      await asUser.listClusterCustomObject({ group, version, plural, limit: 1 });
      return true;
    },
    { ...CONVERGE, message: `RBAC to let ${USER} list widgets` },
  );
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

beforeAll(async () => {
  api = await startKubeApiServer();
  cluster = new E2eCluster(api.kubeConfig, 'e2e');
  await cluster.createNamespace();
  await Promise.all([defineCrd(api.kubeConfig, WIDGETS), defineCrd(api.kubeConfig, GADGETS)]);
  await grantWidgetsOnly();
  // Every informer runs as the restricted user.
  rc = startRealController({ kubeConfig: api.kubeConfigFor(USER) });
});

afterAll(async () => {
  await rc?.stop();
  await api?.stop();
});

describe('a controller whose user may not list a GVR', () => {
  it('rejects register of a forbidden parent with a 403 naming the GVR and the verb, and asks the server again on a retry (a refusal is no remembered failure)', async () => {
    const key = gvrKey(GADGETS.gvr);
    const handler: Handler = async () => {};

    const first = await rejectionOf(rc.controller.register(GADGETS.gvr, handler));
    expect(first).toBeInstanceOf(ParentSyncError);
    expect((first as Error).message).toContain(`cannot register parent ${key}`);
    expect((first as Error).message).toContain('403');
    // The informer pages a LIST first (the default list mode), so the refusal names the list verb.
    expect((first as Error).message).toContain(`cannot list resource "${GADGETS.gvr.resource}"`);
    expect(isNotFound(first)).toBe(false);
    expect(statusesInChain(first)).toContain(403);
    const refusal = causeChain(first).find((e): e is WatchForbiddenError => e instanceof WatchForbiddenError);
    expect(refusal).toMatchObject({ reason: 'Forbidden', status: 403, gvr: GADGETS.gvr, verb: 'list' });
    expect(rc.source.createdFor(GADGETS.gvr)).toBe(1);
    // Nothing is left behind: no handler, no informer.
    expect(rc.controller.registeredGVRs()).toEqual([]);
    expect(rc.watchManager.getInformer(GADGETS.gvr)).toBeUndefined();

    const second = await rejectionOf(rc.controller.register(GADGETS.gvr, handler));
    expect(second).toBeInstanceOf(ParentSyncError);
    expect(isNotFound(second)).toBe(false);
    // A refusal is the cluster's current state, not a failure to wait out: the server is asked again.
    expect(causeChain(second).find((e) => e instanceof WatchForbiddenError)).toMatchObject({ reason: 'Forbidden', status: 403 });
    expect(rc.source.createdFor(GADGETS.gvr)).toBe(2);
    expect(rc.controller.registeredGVRs()).toEqual([]);
  });

  it('rejects a child watch on a forbidden GVR with a 403 and leaves no watch request behind', async () => {
    const failures: unknown[] = [];
    const handler: Handler = async (req, ctx) => {
      const watcher = rc.watchCoordinator.forInstance(ctx.gvr, req);
      try {
        await watcher.watch({ nodeId: 'child', gvr: CONFIGMAPS, namespace: req.namespace, name: `${req.name}-config` });
        watcher.done(true);
      } catch (err) {
        failures.push(err);
        watcher.done(false);
      }
    };
    await rc.controller.register(WIDGETS.gvr, handler);
    await cluster.createInstance(WIDGETS, 'delta', 'x');
    await waitFor(() => failures.length > 0, { ...CONVERGE, message: 'the child watch of delta to fail' });

    const err = failures[0];
    expect(err).toBeInstanceOf(WatchUnavailableError);
    expect((err as Error).message).toContain(`cannot watch ${gvrKey(CONFIGMAPS)} for instance ${gvrKey(WIDGETS.gvr)} e2e/delta`);
    expect((err as Error).message).toContain('403');
    expect(isNotFound(err)).toBe(false);
    expect(statusesInChain(err)).toContain(403);
    expect(causeChain(err).find((e) => e instanceof WatchForbiddenError)).toMatchObject({ reason: 'Forbidden', status: 403, verb: 'list' });
    // The request went with the failure; only the parent informer runs.
    expect(rc.watchCoordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
    expect(rc.watchCoordinator.instanceWatchCount()).toBe(0);
    expect(rc.watchManager.getInformer(CONFIGMAPS)).toBeUndefined();
    expect(rc.watchManager.activeWatchCount()).toBe(1);
    expect(rc.controller.hasSynced(WIDGETS.gvr)).toBe(true);
  });
});
