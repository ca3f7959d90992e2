// The controller process (src/app.ts) against a real kube-apiserver and etcd (@protean/envtest), as its
// ServiceAccount with exactly deploy/'s RBAC: what it lacks, the server refuses, as in a cluster. Opt-in, as it
// needs the binaries (`npx protean-envtest build`, once per machine): `npm run test:real` sets PROTEAN_ENVTEST=1.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findStatusCondition, KubeClient, type KubeObject } from '@protean/client';
import { silentLogger } from '@protean/core';
import { serviceAccountKubeConfig, startKubeApiServer, waitUntil, type KubeApiServer } from '@protean/envtest';
import { compareWithRbac, describeComparison, permissionsUsed } from '@protean/permissions';
import { parseAllDocuments } from 'yaml';
// #if webhooks
import { DEFAULT_MESSAGE } from './admission.js';
// #endif
import { createApp } from './app.js';
import type { Parent } from './controller.js';
import { CONFIGMAPS, CONTROLLER_NAME, PARENT } from './names.js';

const enabled = process.env['PROTEAN_ENVTEST'] === '1';
// Without it Jest lists this suite as skipped, under a name that says how to run it.
const suite = enabled ? describe : describe.skip;
const OPT_IN = enabled ? '' : ' (opt-in, skipped: set PROTEAN_ENVTEST=1, e.g. npm run test:real)';
const CONTROLLER_NAMESPACE = '{{namespace}}';

/** What an administrator applies before the controller runs: deploy/'s cluster objects, RBAC included. */
const ADMIN_APPLIED: Readonly<Record<string, { group: string; version: string; resource: string }>> = {
  Namespace: { group: '', version: 'v1', resource: 'namespaces' },
  CustomResourceDefinition: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
  ServiceAccount: { group: '', version: 'v1', resource: 'serviceaccounts' },
  Role: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles' },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings' },
  ClusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' },
};

function deployYaml(): string {
  const text = (file: string): string => readFileSync(new URL(`../deploy/${file}`, import.meta.url), 'utf8');
  const kustomization = parseAllDocuments(text('kustomization.yaml'))[0]?.toJS() as { resources: string[] };
  return kustomization.resources.map(text).join('\n---\n');
}

suite(`the {{kind}} controller on a real kube-apiserver${OPT_IN}`, () => {
  let server: KubeApiServer;
  let admin: KubeClient;
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let kubeConfig: Awaited<ReturnType<typeof serviceAccountKubeConfig>>;

  beforeAll(async () => {
    server = await startKubeApiServer();
    admin = new KubeClient({ kubeConfig: server.kubeConfig });
    const objects = parseAllDocuments(deployYaml()).map((d) => d.toJS() as KubeObject | null);
    for (const object of objects) {
      const gvr = object?.kind === undefined ? undefined : ADMIN_APPLIED[object.kind];
      if (object !== null && gvr !== undefined) await admin.create(gvr, object);
    }
    await waitUntil(
      () =>
        admin.list(PARENT.gvr).then(
          () => true,
          () => false,
        ),
      `${PARENT.gvr.resource} to be served`,
      30_000,
    );
    kubeConfig = await serviceAccountKubeConfig(server.kubeConfig, { namespace: CONTROLLER_NAMESPACE, name: CONTROLLER_NAME });
    const app = await createApp({
      kubeConfig,
      logger: silentLogger(),
      namespace: CONTROLLER_NAMESPACE,
      podName: 'real-test',
      // #if webhooks
      // kube-apiserver runs on this machine: it calls the webhooks at the server's own address.
      webhooks: { port: 0, reachAt: 'self' },
      // #endif
    });
    running = app.run(stop.signal);
  }, 60_000);

  afterAll(async () => {
    stop.abort();
    await running?.catch(() => {});
    admin?.close();
    await server?.stop();
  });

  it('applies the owned ConfigMap and reports Ready, refused nothing by its RBAC', async () => {
    await admin.create(PARENT.gvr, {
      apiVersion: PARENT.apiVersion,
      kind: PARENT.kind,
      metadata: { name: 'one', namespace: 'default' },
      spec: { message: 'hello' },
    });
    const ready = async (): Promise<boolean> =>
      findStatusCondition((await admin.get<Parent>(PARENT.gvr, { namespace: 'default', name: 'one' })).status?.conditions, 'Ready')
        ?.status === 'True';
    // What the ServiceAccount was refused, or used without a rule in deploy/: named when Ready does not come.
    const refused = (): string[] =>
      describeComparison({
        missing: compareWithRbac(permissionsUsed(kubeConfig), deployYaml(), {
          serviceAccount: { namespace: CONTROLLER_NAMESPACE, name: CONTROLLER_NAME },
        }).missing,
        unused: [],
      });
    await waitUntil(ready, 'Ready=True', 30_000).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${refused().join('\n') || 'deploy/ granted every access the controller made'}`);
    });
    const child = await admin.get<KubeObject & { data?: Record<string, string> }>(CONFIGMAPS, {
      namespace: 'default',
      name: 'one-{{singular}}',
    });
    expect(child.data).toEqual({ message: 'hello', parts: '' });
    expect(refused()).toEqual([]);
  }, 60_000);
  // #if webhooks

  it('has kube-apiserver call its webhooks: a missing message defaulted, a spaced one refused', async () => {
    // In force once kube-apiserver has seen the configurations the controller wrote (about a second).
    let n = 0;
    const create = (spec: Parent['spec']): Promise<Parent> =>
      admin.create<Parent>(PARENT.gvr, {
        apiVersion: PARENT.apiVersion,
        kind: PARENT.kind,
        metadata: { name: `w-${n++}`, namespace: 'default' },
        spec,
      });
    await waitUntil(async () => (await create({})).spec.message === DEFAULT_MESSAGE, 'the defaulting webhook in force', 30_000);
    await expect(create({ message: ' spaced ' })).rejects.toThrow(
      `admission webhook "{{plural}}.{{group}}.webhooks.protean.dev" denied the request: spec.message: must not start or end with spaces`,
    );
  }, 60_000);
  // #endif
});
