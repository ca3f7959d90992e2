// deploy/'s RBAC against what the controller does: the whole process (src/app.ts, as src/main.ts runs it) on the
// in-memory API server through a parent's life, every request recorded where it leaves the process. Every access
// must be granted to the ServiceAccount by deploy/, and every rule there must have been used: an owned kind added
// to the controller without its rule fails here, every missing rule named at once (a cluster shows one per backoff).
import { readFileSync } from 'node:fs';
import { expect, it } from '@jest/globals';
import { findStatusCondition, KubeClient, type Stored } from '@protean/client';
import { LogRecorder, waitFor } from '@protean/core/testing';
import { InMemoryApiServer, type KubeObject } from '@protean/in-memory-apiserver';
import { compareWithRbac, describeComparison, permissionsUsed, type UnusedGrant } from '@protean/permissions';
import { parse } from 'yaml';
// #if webhooks
import { DEFAULT_MESSAGE } from './admission.js';
// #endif
import { createApp } from './app.js';
import type { Parent } from './controller.js';
import { CONFIGMAPS, CONTROLLER_NAME, PARENT, PART_OF_LABEL } from './names.js';

const NS = 'demo';
const CONTROLLER_NAMESPACE = '{{namespace}}';

/**
 * Rules deploy/ may grant that one replica on a test server cannot use, each with why it is still needed
 * (matched only where deploy/ grants it).
 */
const NOT_EXERCISED: readonly (Pick<UnusedGrant, 'apiGroup' | 'resource' | 'verb'> & { readonly why: string })[] = [
  {
    apiGroup: 'coordination.k8s.io',
    resource: 'leases',
    verb: 'delete',
    why: 'a replica removes the member lease of another replica gone for good',
  },
  // #if webhooks
  { apiGroup: '', resource: 'secrets', verb: 'update', why: 'the webhook certificate is renewed before it expires (weeks)' },
  // #endif
];

function deployYaml(): string {
  const kustomization = parse(readFileSync(new URL('../deploy/kustomization.yaml', import.meta.url), 'utf8')) as { resources: string[] };
  return kustomization.resources.map((file) => readFileSync(new URL(`../deploy/${file}`, import.meta.url), 'utf8')).join('\n---\n');
}

it("uses exactly the permissions deploy/ grants its ServiceAccount, through a parent's whole life", async () => {
  const server = await InMemoryApiServer.start({ fieldValidation: 'Strict' });
  const kubeConfig = server.kubeConfig();
  const admin = new KubeClient({ kubeConfig: server.kubeConfig() }); // set-up outside the controller's record
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    for (const doc of deployYaml().split(/^---$/m)) {
      const object = parse(doc) as KubeObject | null;
      if (object?.kind === 'CustomResourceDefinition')
        await admin.create({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, object);
    }
    const log = new LogRecorder('warn');
    const app = await createApp({
      kubeConfig,
      logger: log.logger,
      namespace: CONTROLLER_NAMESPACE,
      podName: 'test',
      signal: stop.signal,
      // #if webhooks
      // The in-memory API server calls the webhooks at the server's own address, as kube-apiserver would the Service.
      webhooks: { port: 0, reachAt: 'self' },
      // #endif
    });
    running = app.run(stop.signal);

    const parentOf = (): Stored<Parent> | undefined => server.get(PARENT.gvr, NS, 'p') as Stored<Parent> | undefined;
    const child = `p-{{singular}}`;
    server.create(PARENT.gvr, {
      apiVersion: PARENT.apiVersion,
      kind: PARENT.kind,
      metadata: { name: 'p', namespace: NS },
      spec: { message: 'hi' },
    });
    await waitFor(() => findStatusCondition(parentOf()?.status?.conditions, 'Ready')?.status === 'True', { timeoutMs: 20_000 });
    server.patch(PARENT.gvr, NS, 'p', { spec: { message: 'hello' } });
    server.create(CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'part', namespace: NS, labels: { [PART_OF_LABEL]: 'p' } },
    });
    await waitFor(() => parentOf()?.status?.parts === 1, { timeoutMs: 10_000 });
    server.delete(CONFIGMAPS, NS, child);
    await waitFor(() => server.get(CONFIGMAPS, NS, child) !== undefined, { timeoutMs: 10_000 });
    await admin.delete(PARENT.gvr, { namespace: NS, name: 'p' });
    await waitFor(() => parentOf() === undefined, { timeoutMs: 10_000 });
    // #if webhooks
    // Through the API, as a user writes: defaulted by the mutating webhook, refused by the validating one.
    const defaulted = await admin.create(PARENT.gvr, {
      apiVersion: PARENT.apiVersion,
      kind: PARENT.kind,
      metadata: { name: 'q', namespace: NS },
      spec: {},
    });
    expect(defaulted['spec']).toEqual({ message: DEFAULT_MESSAGE });
    await expect(
      admin.create(PARENT.gvr, {
        apiVersion: PARENT.apiVersion,
        kind: PARENT.kind,
        metadata: { name: 'r', namespace: NS },
        spec: { message: ' x ' },
      }),
    ).rejects.toThrow('spec.message: must not start or end with spaces');
    await admin.delete(PARENT.gvr, { namespace: NS, name: 'q' });
    await waitFor(() => server.get(PARENT.gvr, NS, 'q') === undefined, { timeoutMs: 10_000 });
    // #endif
    stop.abort(new Error('test over'));
    await running; // the lease is released on the way out

    const { missing, unused } = compareWithRbac(permissionsUsed(kubeConfig), deployYaml(), {
      serviceAccount: { namespace: CONTROLLER_NAMESPACE, name: CONTROLLER_NAME },
    });
    const needed = unused.filter(
      (u) => !NOT_EXERCISED.some((n) => n.apiGroup === u.apiGroup && n.resource === u.resource && n.verb === u.verb),
    );
    // Each line names a rule to add to deploy/ (missing) or one to remove (unused), all of them at once.
    expect(describeComparison({ missing, unused: needed })).toEqual([]);
  } finally {
    stop.abort(new Error('test over'));
    await running?.catch(() => {});
    admin.close();
    await server.stop();
  }
});
