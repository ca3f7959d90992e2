// The same handler against a real kube-apiserver and etcd (@protean/envtest). Opt-in, as it needs the
// binaries (`npx protean-envtest build`, once per machine): `npm run test:real` sets PROTEAN_ENVTEST=1.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findStatusCondition, KubeClient, type KubeObject } from '@protean/client';
import { silentLogger, type DynamicController } from '@protean/core';
import { startKubeApiServer, waitUntil, type KubeApiServer } from '@protean/envtest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { composeController } from './composeController.js';
import { createHandler, type Parent } from './controller.js';
import { CONFIGMAPS, PARENT } from './names.js';

const enabled = process.env['PROTEAN_ENVTEST'] === '1';
// Without it Jest lists this suite as skipped, under a name that says how to run it.
const suite = enabled ? describe : describe.skip;
const OPT_IN = enabled ? '' : ' (opt-in, skipped: set PROTEAN_ENVTEST=1, e.g. npm run test:real)';
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

suite(`the {{kind}} controller on a real kube-apiserver${OPT_IN}`, () => {
  let server: KubeApiServer;
  let client: KubeClient;
  let controller: DynamicController;
  const stop = new AbortController();
  let running: Promise<void>;

  beforeAll(async () => {
    server = await startKubeApiServer();
    client = new KubeClient({ kubeConfig: server.kubeConfig });
    // The CRD exactly as deploy/crd.yaml ships it.
    const crd = parse(readFileSync(new URL('../deploy/crd.yaml', import.meta.url), 'utf8')) as KubeObject;
    await client.create(CRDS, crd);
    await waitUntil(
      () =>
        client.list(PARENT.gvr).then(
          () => true,
          () => false,
        ),
      `${PARENT.gvr.resource} to be served`,
      30_000,
    );
    ({ controller } = composeController({ kubeConfig: server.kubeConfig, logger: silentLogger() }));
    running = controller.start(stop.signal);
    await controller.register(PARENT.gvr, createHandler({ kubeConfig: server.kubeConfig, controller }));
  });

  afterAll(async () => {
    stop.abort();
    await running;
    client?.close();
    await server?.stop();
  });

  it('applies the owned ConfigMap and reports Ready', async () => {
    await client.create(PARENT.gvr, {
      apiVersion: PARENT.apiVersion,
      kind: PARENT.kind,
      metadata: { name: 'one', namespace: 'default' },
      spec: { message: 'hello' },
    });
    const ready = async (): Promise<boolean> =>
      findStatusCondition((await client.get<Parent>(PARENT.gvr, { namespace: 'default', name: 'one' })).status?.conditions, 'Ready')
        ?.status === 'True';
    await waitUntil(ready, 'Ready=True', 30_000);
    const child = await client.get<KubeObject & { data?: Record<string, string> }>(CONFIGMAPS, {
      namespace: 'default',
      name: 'one-{{singular}}',
    });
    expect(child.data).toEqual({ message: 'hello', parts: '' });
  });
});
