import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { gvrKey, type NamespacedName } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { E2E_GROUP, GADGETS, WIDGETS, type E2eKind } from '../e2e/kinds.js';
import { childrenConverged, installCrd, startKindChangeRun, type KindChangeRun } from './kindChangeScenario.js';

/*
 * Permissions that come back under a running controller, on kube-apiserver: the controller's informers run as a
 * ServiceAccount (its username and groups, as a Pod's token would give them), refused a kind until RBAC grants it.
 * Handlers write with admin credentials: only what the controller watches is restricted.
 */

const NAMESPACE = 'rbac';
const SA = { namespace: 'ctl', name: 'protean' };
const SA_USER = `system:serviceaccount:${SA.namespace}:${SA.name}`;
const SPROCKETS: E2eKind = Object.freeze({
  kind: 'Sprocket',
  gvr: Object.freeze({ group: E2E_GROUP, version: 'v1', resource: 'sprockets' }),
});
/** Every backoff of the informers starts at a minute: converging before then proves the grant was noticed, not retried into. */
const BACKOFF_OF_A_MINUTE = { backoff: { initialMs: 60_000, maxMs: 60_000 } } as const;

let api: KubeApiServer;
let rbac: RbacAuthorizationV1Api;
let asServiceAccount: KubeConfig;

/** Grants the ServiceAccount `verbs` on `kind` (a ClusterRole and its binding); resolves with the moment the binding exists. */
async function grant(kind: E2eKind, verbs: readonly string[], name = `${kind.gvr.resource}-${verbs.join('-')}`): Promise<number> {
  await rbac.createClusterRole({
    body: { metadata: { name }, rules: [{ apiGroups: [kind.gvr.group], resources: [kind.gvr.resource], verbs: [...verbs] }] },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', namespace: SA.namespace, name: SA.name }],
    },
  });
  return Date.now();
}

/** Waits until the API server's authorizer lets the ServiceAccount list `kind` (its RBAC informers lag a moment). */
async function allowedToList(kind: E2eKind): Promise<void> {
  const objects = asServiceAccount.makeApiClient(CustomObjectsApi);
  const { group, version, resource: plural } = kind.gvr;
  await waitFor(
    async () => {
      await objects.listClusterCustomObject({ group, version, plural, limit: 1 });
      return true;
    },
    { timeoutMs: 30_000, intervalMs: 50, message: `RBAC to let ${SA_USER} list ${plural}` },
  );
}

beforeAll(async () => {
  api = await startKubeApiServer();
  rbac = api.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await api.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: SA.namespace } } });
  await api.kubeConfig
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace: SA.namespace, body: { metadata: { name: SA.name } } });
  asServiceAccount = api.kubeConfigFor(SA_USER, ['system:serviceaccounts', `system:serviceaccounts:${SA.namespace}`]);
  await Promise.all([installCrd(api.kubeConfig, WIDGETS), installCrd(api.kubeConfig, GADGETS), installCrd(api.kubeConfig, SPROCKETS)]);
  await grant(WIDGETS, ['get', 'list', 'watch']);
  await allowedToList(WIDGETS);
});

afterAll(async () => {
  await api?.stop();
});

describe('a kind the controller may not watch until RBAC grants it', () => {
  let run: KindChangeRun | undefined;
  afterAll(async () => {
    await run?.stop();
  });

  it('parks 5 instances on the forbidden kind, without a failed pass, and converges once RBAC grants it, before any backoff could', async () => {
    run = await startKindChangeRun({ admin: api.kubeConfig, controller: asServiceAccount }, WIDGETS, GADGETS, {
      namespace: NAMESPACE,
      informer: BACKOFF_OF_A_MINUTE,
    });
    const instances: NamespacedName[] = [];
    for (let i = 0; i < 5; i++) {
      await run.cluster.createInstance(WIDGETS, `w${i}`, 'x');
      instances.push({ namespace: NAMESPACE, name: `w${i}` });
    }
    await waitFor(() => run!.observer.outcomes().filter((o) => o === 'waiting').length >= 5, {
      timeoutMs: 30_000,
      message: 'every instance to wait for the forbidden kind',
    });
    // Held a while: the instances wait, they do not fail or back off.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(run.observer.outcomes().filter((o) => o !== 'waiting')).toEqual([]);
    expect(run.observer.handlerErrors).toEqual([]);

    const granted = await grant(GADGETS, ['get', 'list', 'watch']);
    const converged = await childrenConverged(run, instances, 30_000);
    if (process.env['KIND_CHANGES_PRINT'] === '1') console.log({ grantToConvergedMs: converged - granted });
    expect(run.observer.outcomes().filter((o) => o === 'error' || o === 'not_found' || o === 'dropped')).toEqual([]);
  });

  it('names a watch refused while the list is allowed: unhealthy, the verb and the resource; healthy again once watch is granted', async () => {
    await grant(SPROCKETS, ['get', 'list'], 'sprockets-list');
    await allowedToList(SPROCKETS);
    const rc = run!.rc;
    // A child watch of the kind: the list syncs the informer, the watch is refused.
    const watcher = rc.watchCoordinator.forInstance(WIDGETS.gvr, { namespace: NAMESPACE, name: 'w0' });
    await watcher.watch({ nodeId: 'sprocket', gvr: SPROCKETS.gvr, namespace: NAMESPACE, name: 's' });
    const failing = (): string | undefined =>
      rc.watchManager.health!().find((h) => gvrKey(h.gvr) === gvrKey(SPROCKETS.gvr))?.informer.failing?.cause;
    await waitFor(() => failing() !== undefined, { timeoutMs: 30_000, message: 'the sprockets informer to report its refused watch' });
    expect(failing()).toMatch(
      new RegExp(
        `^forbidden to watch sprockets \\(group "${E2E_GROUP}", version v1\\) at the cluster scope: the API server at https://127\\.0\\.0\\.1:\\d+ answered 403: .*cannot watch resource "sprockets".*; waiting for RBAC to grant "watch"$`,
      ),
    );
    // Relists (the backoff's pace) keep it failing: only a watch ends the outage.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(failing()).toBeDefined();
    expect(run!.logs.find('list/watch recovered').filter((r) => r['gvr'] === gvrKey(SPROCKETS.gvr))).toEqual([]);

    await grant(SPROCKETS, ['watch'], 'sprockets-watch');
    await waitFor(() => failing() === undefined, { timeoutMs: 10_000, intervalMs: 50, message: 'the sprockets informer to watch again' });
    watcher.done(false);
  });
});
