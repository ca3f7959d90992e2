import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@protean/core';
import { KubeClient } from '@protean/client';
import { kubeRequest, startKubeApiServer, waitUntil, type Json, type KubeApiServer } from '@protean/envtest';
import { createTestController } from '@protean/testing';
import { KubernetesInformerSource } from '@protean/watch-manager';
import { AdmissionRegistrar, AdmittingController, WebhookServer } from '@protean/webhooks';

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
const tlsCert = (): string => readFileSync(join(dir, 'tls.crt'), 'utf8');
const tlsKey = (): string => readFileSync(join(dir, 'tls.key'), 'utf8');

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
  it('register(parent, handler, { admission }) adds the rule, the server enforces it, and deregistering takes it out', async () => {
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
    const client = new KubeClient({ kubeConfig: server.kubeConfig });
    const t = createTestController({ source: new KubernetesInformerSource({ kubeConfig: server.kubeConfig }), waitForTimeoutMs: 20_000 });
    const admitting = new AdmittingController({
      controller: t.controller,
      server: webhooks,
      registrar: new AdmissionRegistrar({
        client,
        name: 'protean-runtime',
        clientConfig: { url: webhooks.url, caPem: Buffer.from(caBundle, 'base64').toString('utf8') },
        writes: () => t.controller.isLeading(),
      }),
      logger: silentLogger(),
    });
    let n = 0;
    const tryGizmo = async (size: number): Promise<{ status: number; message: unknown }> => {
      const r = await kubeRequest(server.kubeConfig, 'POST', path, {
        body: { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: `gizmo-${n++}` }, spec: { size } },
      });
      return { status: r.status, message: r.json['message'] };
    };
    expect((await tryGizmo(9)).status).toBe(201);
    const reconciled = new Set<string>();
    try {
      await t.start();
      const registeredAt = performance.now();
      await admitting.register(
        gizmos,
        (req) => {
          reconciled.add(req.name);
          return Promise.resolve();
        },
        {
          admission: {
            validate: (req) => {
              const size = ((req.object?.['spec'] ?? {}) as { size?: number }).size ?? 0;
              return size <= 5 ? { allowed: true } : { allowed: false, message: `spec.size ${size} is more than 5` };
            },
            failurePolicy: 'Fail',
          },
        },
      );
      let denied: { status: number; message: unknown } = { status: 0, message: '' };
      await waitUntil(async () => (denied = await tryGizmo(9)).status !== 201, 'the registered webhook in force', 15_000);
      console.log(`registered at run time: enforced ${Math.round(performance.now() - registeredAt)} ms after register() was called`);
      expect(denied).toEqual({
        status: 403,
        message: `admission webhook "gizmos.${GROUP}.webhooks.protean.dev" denied the request: spec.size 9 is more than 5`,
      });
      // The kind is reconciled as well: a gizmo the webhook allowed reaches the handler.
      const small = `gizmo-${n}`;
      expect((await tryGizmo(2)).status).toBe(201);
      await waitUntil(() => Promise.resolve(reconciled.has(small)), 'the allowed gizmo reconciled', 15_000);

      await admitting.deregister(gizmos);
      await waitUntil(async () => (await tryGizmo(9)).status === 201, 'the webhook gone after deregister', 15_000);
      const stored = await kubeRequest(
        server.kubeConfig,
        'GET',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/protean-runtime',
      );
      expect(stored.json['webhooks'] ?? []).toEqual([]);
      expect(t.controller.registeredGVRs()).toEqual([]);
    } finally {
      await t.dispose();
      client.close();
    }
  }, 60_000);
});

describe('a webhook that hangs', () => {
  it("is answered by the server's timeout, or by kube-apiserver's and the configured failurePolicy", async () => {
    const hung = 'hung';
    await kubeRequest(server.kubeConfig, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: hung, labels: { 'hooks.protean.dev/hung': 'true' } } },
    });
    // Its own server: answers for a hung handler after 1 s; a second one waits 3 s, past kube-apiserver's 1 s.
    const hang = (_req: unknown, signal: AbortSignal): Promise<never> =>
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    const quick = new WebhookServer({
      tls: { cert: tlsCert(), key: tlsKey() },
      port: 0,
      host: '127.0.0.1',
      handlerTimeoutMs: 1_000,
      logger: silentLogger(),
    });
    const slow = new WebhookServer({
      tls: { cert: tlsCert(), key: tlsKey() },
      port: 0,
      host: '127.0.0.1',
      handlerTimeoutMs: 3_000,
      logger: silentLogger(),
    });
    quick.validate('/hang', hang);
    slow.validate('/hang', hang);
    await Promise.all([quick.start(), slow.start()]);
    const webhook = (name: string, url: string, timeoutSeconds: number, failurePolicy: string, test: string): Json => ({
      name,
      clientConfig: { url: `${url}/hang`, caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'hooks.protean.dev/hung': 'true' } },
      objectSelector: { matchLabels: { test } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      failurePolicy,
      timeoutSeconds,
    });
    try {
      const created = await kubeRequest(
        server.kubeConfig,
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        {
          body: {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingWebhookConfiguration',
            metadata: { name: 'protean-hang' },
            webhooks: [
              webhook('server-timeout.hooks.protean.dev', quick.url, 5, 'Fail', 'server-timeout'),
              webhook('apiserver-fail.hooks.protean.dev', slow.url, 1, 'Fail', 'apiserver-fail'),
              webhook('apiserver-ignore.hooks.protean.dev', slow.url, 1, 'Ignore', 'apiserver-ignore'),
            ],
          },
        },
      );
      expect(created.status).toBe(201);
      let n = 0;
      const create = async (test: string): Promise<{ status: number; message: string }> => {
        const r = await kubeRequest(server.kubeConfig, 'POST', `/api/v1/namespaces/${hung}/configmaps`, {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${test}-${n++}`, labels: { test } } },
        });
        return { status: r.status, message: String(r.json['message'] ?? '') };
      };
      // In force once a create of the first kind is refused.
      let byServer = { status: 0, message: '' };
      await waitUntil(async () => (byServer = await create('server-timeout')).status !== 201, 'the hanging webhooks in force', 15_000);
      expect(byServer.status).toBe(504);
      expect(byServer.message).toMatch(
        /^admission webhook "server-timeout\.hooks\.protean\.dev" denied the request: webhook \/hang did not decide on CREATE of ConfigMap hung\/server-timeout-\d+ within 1000 ms$/,
      );
      const failed = await create('apiserver-fail');
      expect(failed.status).toBe(500);
      expect(failed.message).toMatch(
        /^Internal error occurred: failed calling webhook "apiserver-fail\.hooks\.protean\.dev": .*(deadline|timeout)/i,
      );
      expect(await create('apiserver-ignore')).toMatchObject({ status: 201 });
    } finally {
      await kubeRequest(server.kubeConfig, 'DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/protean-hang');
      await Promise.all([quick.stop(), slow.stop()]);
    }
  }, 60_000);
});
