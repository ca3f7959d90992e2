import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@protean/core';
import { KubeClient } from '@protean/client';
import { kubeRequest, startKubeApiServer, waitUntil, type Json, type KubeApiServer } from '@protean/envtest';
import { AdmissionRegistrar, WebhookServer } from '@protean/webhooks';

/*
 * kube-apiserver calling a WebhookServer on 127.0.0.1: a validating webhook's denial reaches the client with the
 * handler's message, a mutating webhook's patch is on the stored object, and a CRD with two versions is written
 * and read in both through a conversion webhook.
 */

const GROUP = 'hooks.protean.dev';
let dir: string;
let server: KubeApiServer;
let webhooks: WebhookServer;
let caBundle: string;
let ns: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'protean-webhooks-real-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt'),
  ], { stdio: 'ignore' }); // prettier-ignore
  caBundle = readFileSync(join(dir, 'tls.crt')).toString('base64');
  webhooks = new WebhookServer({
    tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger(),
  });
  webhooks
    .validate('/validate-configmaps', (req) => {
      const data = (req.object?.['data'] ?? {}) as Record<string, string>;
      return data['forbidden'] === undefined ? { allowed: true } : { allowed: false, message: 'data.forbidden is not allowed here' };
    })
    .mutate('/default-configmaps', (req) => {
      const object = structuredClone(req.object!);
      const meta = object['metadata'] as { labels?: Record<string, string> };
      meta.labels = { ...meta.labels, 'hooks.protean.dev/seen-by': req.userInfo.username?.replace(/[^A-Za-z0-9._-]/g, '_') ?? 'nobody' };
      return { object };
    })
    .convert('/convert-gadgets', (object, desired) => {
      const spec = (object['spec'] ?? {}) as Record<string, unknown>;
      // v1alpha1 has spec.size, v1 has spec.replicas.
      const converted = desired.endsWith('/v1') ? { replicas: spec['size'] } : { size: spec['replicas'] };
      return { ...object, apiVersion: desired, spec: converted };
    });
  await webhooks.start();
  server = await startKubeApiServer();
  const created = await kubeRequest(server.kubeConfig, 'POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hooked', labels: { 'hooks.protean.dev/enabled': 'true' } } },
  });
  expect(created.status).toBe(201);
  ns = 'hooked';
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await webhooks?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A webhook of a configuration, for ConfigMaps in namespaces labelled for this test only. */
function configMapWebhook(name: string, path: string): Json {
  return {
    name,
    clientConfig: { url: `${webhooks.url}${path}`, caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { 'hooks.protean.dev/enabled': 'true' } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
  };
}

describe('admission webhooks served by WebhookServer, called by kube-apiserver', () => {
  it("denies a bad create with the handler's message, and stores a mutation's change", async () => {
    const admission = '/apis/admissionregistration.k8s.io/v1';
    expect(
      (
        await kubeRequest(server.kubeConfig, 'POST', `${admission}/validatingwebhookconfigurations`, {
          body: {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingWebhookConfiguration',
            metadata: { name: 'protean-validate' },
            webhooks: [configMapWebhook('validate.hooks.protean.dev', '/validate-configmaps')],
          },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await kubeRequest(server.kubeConfig, 'POST', `${admission}/mutatingwebhookconfigurations`, {
          body: {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'MutatingWebhookConfiguration',
            metadata: { name: 'protean-default' },
            webhooks: [{ ...configMapWebhook('default.hooks.protean.dev', '/default-configmaps'), reinvocationPolicy: 'Never' }],
          },
        })
      ).status,
    ).toBe(201);

    // kube-apiserver picks configurations up from its informer: a bad create is denied once both are in force.
    let denied: Json = {};
    let attempt = 0;
    await waitUntil(
      async () => {
        const name = `bad-${attempt++}`;
        const r = await kubeRequest(server.kubeConfig, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { forbidden: 'x' } },
        });
        denied = { status: r.status, message: r.json['message'] };
        return r.status !== 201;
      },
      'the validating webhook in force',
      15_000,
    );
    expect(denied).toEqual({
      status: 403,
      message: 'admission webhook "validate.hooks.protean.dev" denied the request: data.forbidden is not allowed here',
    });

    let stored: Json = {};
    await waitUntil(
      async () => {
        const name = `good-${attempt++}`;
        const r = await kubeRequest(server.kubeConfig, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { fine: 'y' } },
        });
        stored = r.json;
        return ((r.json['metadata'] as Json | undefined)?.['labels'] as Json | undefined)?.['hooks.protean.dev/seen-by'] !== undefined;
      },
      'the mutating webhook in force',
      15_000,
    );
    const labels = (stored['metadata'] as Json)['labels'] as Record<string, string>;
    expect(labels['hooks.protean.dev/seen-by']).toMatch(/admin/);
  }, 60_000);
});

describe('a conversion webhook served by WebhookServer', () => {
  it('writes and reads a CRD with v1alpha1 and v1 (storage v1) in both versions', async () => {
    const schema = (spec: Json): Json => ({
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
    });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          { name: 'v1alpha1', served: true, storage: false, schema: schema({ size: { type: 'integer' } }) },
          { name: 'v1', served: true, storage: true, schema: schema({ replicas: { type: 'integer' } }) },
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `${webhooks.url}/convert-gadgets`, caBundle } },
        },
      },
    };
    expect(
      (await kubeRequest(server.kubeConfig, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status,
    ).toBe(201);
    const path = (version: string, name = ''): string =>
      `/apis/${GROUP}/${version}/namespaces/${ns}/gadgets${name === '' ? '' : `/${name}`}`;
    await waitUntil(async () => (await kubeRequest(server.kubeConfig, 'GET', path('v1alpha1'))).status === 200, 'gadgets served', 30_000);

    // Written in the old version: stored as v1 through the webhook, read back in both.
    const written = await kubeRequest(server.kubeConfig, 'POST', path('v1alpha1'), {
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 3 } },
    });
    expect({ status: written.status, spec: written.json['spec'] }).toEqual({ status: 201, spec: { size: 3 } });
    const asV1 = await kubeRequest(server.kubeConfig, 'GET', path('v1', 'g'));
    expect({ apiVersion: asV1.json['apiVersion'], spec: asV1.json['spec'] }).toEqual({ apiVersion: `${GROUP}/v1`, spec: { replicas: 3 } });

    // Written in the storage version, read in the old one.
    await kubeRequest(server.kubeConfig, 'POST', path('v1'), {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'h' }, spec: { replicas: 5 } },
    });
    const asAlpha = await kubeRequest(server.kubeConfig, 'GET', path('v1alpha1', 'h'));
    expect({ apiVersion: asAlpha.json['apiVersion'], spec: asAlpha.json['spec'] }).toEqual({
      apiVersion: `${GROUP}/v1alpha1`,
      spec: { size: 5 },
    });
  }, 60_000);
});

describe('webhooks registered at run time with the kind they guard', () => {
  it('adds the rule when the kind is registered, the server enforces it, and deregistering takes it out', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gizmos.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
            },
          },
        ],
      },
    };
    expect(
      (await kubeRequest(server.kubeConfig, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status,
    ).toBe(201);
    const gizmos = { group: GROUP, version: 'v1', resource: 'gizmos' };
    const path = `/apis/${GROUP}/v1/namespaces/${ns}/gizmos`;
    await waitUntil(async () => (await kubeRequest(server.kubeConfig, 'GET', path)).status === 200, 'gizmos served', 30_000);
    // Served from now on; kube-apiserver calls it once the registrar has put it in the configuration.
    webhooks.validate('/validate-gizmos', (req) => {
      const size = ((req.object?.['spec'] ?? {}) as { size?: number }).size ?? 0;
      return size <= 5 ? { allowed: true } : { allowed: false, message: `spec.size ${size} is more than 5` };
    });
    const client = new KubeClient({ kubeConfig: server.kubeConfig });
    const registrar = new AdmissionRegistrar({
      client,
      name: 'protean-runtime',
      clientConfig: { url: webhooks.url, caPem: Buffer.from(caBundle, 'base64').toString('utf8') },
    });
    let n = 0;
    const tryBig = async (): Promise<{ status: number; message: unknown }> => {
      const r = await kubeRequest(server.kubeConfig, 'POST', path, {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: `big-${n++}` }, spec: { size: 9 } },
      });
      return { status: r.status, message: r.json['message'] };
    };
    expect((await tryBig()).status).toBe(201);
    try {
      const registeredAt = performance.now();
      await registrar.register(gizmos, [{ type: 'validating', path: '/validate-gizmos' }]);
      let denied: { status: number; message: unknown } = { status: 0, message: '' };
      await waitUntil(async () => (denied = await tryBig()).status !== 201, 'the registered webhook in force', 15_000);
      console.log(`registered at run time: enforced ${Math.round(performance.now() - registeredAt)} ms after register() was called`);
      expect(denied).toEqual({
        status: 403,
        message: `admission webhook "gizmos.${GROUP}.webhooks.protean.dev" denied the request: spec.size 9 is more than 5`,
      });

      await registrar.deregister(gizmos);
      await waitUntil(async () => (await tryBig()).status === 201, 'the webhook gone after deregister', 15_000);
      const stored = await kubeRequest(
        server.kubeConfig,
        'GET',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/protean-runtime',
      );
      expect(stored.json['webhooks'] ?? []).toEqual([]);
    } finally {
      client.close();
    }
  }, 60_000);
});
