import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { KubeClient } from '@protean/client';
import { silentLogger } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { AdmissionRegistrar } from './AdmissionRegistrar.js';
import { signedBy, splitPemBundle } from './certificates.js';
import {
  keepConversionCaBundle,
  SelfManagedCertificates,
  type SelfManagedCertificatesOptions,
  type WebhookCertificates,
} from './SelfManagedCertificates.js';

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const DAY = 24 * 3600_000;

let server: InMemoryApiServer;
let client: KubeClient;
beforeAll(async () => {
  server = await InMemoryApiServer.start();
  client = new KubeClient({ kubeConfig: server.kubeConfig() });
});
afterAll(async () => {
  client.close();
  await server.stop();
});

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

let n = 0;
/** The Secret of the replicas made last. */
let secretName = '';
/** Replicas sharing a fresh Secret; `extra` options for all of them. */
function replicas(count: number, extra: Partial<SelfManagedCertificatesOptions> = {}): SelfManagedCertificates[] {
  secretName = `webhook-certs-${n++}`;
  return Array.from(
    { length: count },
    () =>
      new SelfManagedCertificates({
        client,
        namespace: 'default',
        secretName,
        dnsNames: ['hooks.default.svc'],
        ipAddresses: ['127.0.0.1'],
        logger: silentLogger(),
        ...extra,
      }),
  );
}

function started(certs: SelfManagedCertificates): Promise<void> {
  const stop = new AbortController();
  stops.push(stop);
  return certs.start(stop.signal);
}

async function storedSecret(name: string): Promise<Record<string, string>> {
  const secret = await client.get<{ apiVersion: string; kind: string; type: string; data: Record<string, string> }>(SECRETS, {
    namespace: 'default',
    name,
  });
  return {
    type: secret.type,
    ...Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])),
  };
}

function caCount(c: WebhookCertificates): number {
  return splitPemBundle(c.caPem).length;
}

describe('SelfManagedCertificates', () => {
  it('makes the Secret (kubernetes.io/tls, ca.crt, ca.key) when missing; a second replica serves the same certificates', async () => {
    const [a, b] = replicas(2);
    await started(a!);
    const current = a!.current()!;
    const secret = await storedSecret(secretName);
    expect(Object.keys(secret).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key', 'type']);
    expect(secret).toMatchObject({ type: 'kubernetes.io/tls', 'tls.crt': current.cert, 'tls.key': current.key, 'ca.crt': current.caPem });
    expect(signedBy(current.cert, current.caPem)).toBe(true);
    expect(a!.caPem).toBe(current.caPem);

    await started(b!);
    expect(b!.current()).toEqual(current);
  });

  it('two replicas racing to make the Secret, then to renew it, end with one CA and one serving certificate', async () => {
    const [a, b] = replicas(2);
    await Promise.all([started(a!), started(b!)]);
    expect(b!.current()).toEqual(a!.current());
    const ca = a!.caPem;

    await Promise.all([a!.rotate(), b!.rotate()]);
    // Whichever wrote second (or lost the race and read the winner's) holds the stored pair; the other sees it at its next check.
    await Promise.all([a!.check(), b!.check()]);
    expect(b!.current()).toEqual(a!.current());
    expect(a!.caPem).toBe(ca);

    await Promise.all([a!.rotateCa(), b!.rotateCa()]);
    await Promise.all([a!.check(), b!.check()]);
    expect(b!.current()).toEqual(a!.current());
    // One replacement, not two: the old CA and one new one.
    expect(splitPemBundle(a!.caPem)).toHaveLength(2);
    expect(splitPemBundle(a!.caPem)[0]).toBe(ca);
  });

  it('renews the serving certificate once renewAfter of its life has passed, signed by the same CA', async () => {
    const [a] = replicas(1, { servingValidityMs: 4_000, renewAfter: 0.5, checkIntervalMs: 100, caOverlapMs: 1_000 });
    const renewed: WebhookCertificates[] = [];
    a!.onChange((c) => void renewed.push(c));
    await started(a!);
    const first = a!.current()!;
    await waitFor(() => renewed.length >= 2, { timeoutMs: 10_000 });
    const second = renewed[1]!;
    expect(second.cert).not.toBe(first.cert);
    expect(second.caPem).toBe(first.caPem);
    expect(signedBy(second.cert, first.caPem)).toBe(true);
  });

  it('replaces the CA in three steps: trusted first, signing an overlap later, the old one dropped an overlap after that', async () => {
    const [a, b] = replicas(2, { checkIntervalMs: 50, caOverlapMs: 400 });
    await Promise.all([started(a!), started(b!)]);
    const oldCa = a!.caPem;
    const seen: WebhookCertificates[] = [];
    b!.onChange((c) => void seen.push(c));

    const step1 = await a!.rotateCa();
    const [old, added] = splitPemBundle(step1.caPem);
    expect(old).toBe(oldCa);
    expect(signedBy(step1.cert, oldCa)).toBe(true);

    await waitFor(() => caCount(b!.current()!) === 1 && b!.current()!.caPem !== oldCa, { timeoutMs: 10_000 });
    // The other replica went through the same steps, each changing one side only.
    const steps = seen.map((c) => ({ cas: caCount(c), signer: signedBy(c.cert, oldCa) ? 'old' : signedBy(c.cert, added!) ? 'new' : '?' }));
    expect(steps).toEqual([
      { cas: 2, signer: 'old' },
      { cas: 2, signer: 'new' },
      { cas: 1, signer: 'new' },
    ]);
    expect(b!.caPem).toBe(added);
    // The replica that started it reads the last step at its own next check (a busy machine may not have run it yet).
    await a!.check();
    expect(a!.current()).toEqual(b!.current());
  });

  it('issues again when the stored certificate lacks a name this replica serves', async () => {
    const [a] = replicas(1);
    await started(a!);
    const wider = new SelfManagedCertificates({
      client,
      namespace: 'default',
      secretName,
      dnsNames: ['hooks.default.svc', 'hooks.default.svc.cluster.local'],
      ipAddresses: ['127.0.0.1'],
      logger: silentLogger(),
    });
    await started(wider);
    const cert = new X509Certificate(wider.current()!.cert);
    expect(cert.checkHost('hooks.default.svc.cluster.local')).toBeDefined();
    expect(wider.caPem).toBe(a!.caPem);
  });

  it('refuses options that would let kube-apiserver meet an untrusted certificate', () => {
    const base = { client, namespace: 'default', secretName: 'x', dnsNames: ['a.svc'] };
    expect(() => new SelfManagedCertificates({ ...base, dnsNames: [] })).toThrow('needs dnsNames or ipAddresses');
    expect(() => new SelfManagedCertificates({ ...base, caOverlapMs: 1_000, checkIntervalMs: 5_000 })).toThrow(
      'caOverlapMs (1000) must be longer than checkIntervalMs (5000)',
    );
    expect(() => new SelfManagedCertificates({ ...base, renewAfter: 1.5 })).toThrow('renewAfter');
    expect(() => new SelfManagedCertificates({ ...base, caValidityMs: 30 * DAY, servingValidityMs: 30 * DAY })).toThrow(
      'servingValidityMs must fit',
    );
  });
});

describe('the CA bundle where kube-apiserver reads it', () => {
  it('AdmissionRegistrar.setCaBundle applies the configurations again with each new bundle', async () => {
    const [certs] = replicas(1, { checkIntervalMs: 50, caOverlapMs: 400 });
    await started(certs!);
    const registrar = new AdmissionRegistrar({
      client,
      name: 'certs-test',
      clientConfig: { url: 'https://127.0.0.1:9443', caPem: certs!.caPem },
    });
    certs!.onChange((c) => registrar.setCaBundle(c.caPem));
    await registrar.register({ group: '', version: 'v1', resource: 'configmaps' }, [{ type: 'validating', path: '/validate' }]);
    const storedBundle = async (): Promise<string> => {
      const config = await client.get<{ apiVersion: string; kind: string; webhooks: { clientConfig: { caBundle: string } }[] }>(
        { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' },
        { name: 'certs-test' },
      );
      return Buffer.from(config.webhooks[0]!.clientConfig.caBundle, 'base64').toString('utf8');
    };
    expect(await storedBundle()).toBe(certs!.caPem);

    const both = await certs!.rotateCa();
    // Applied before rotateCa resolved: the listeners are awaited.
    expect(await storedBundle()).toBe(both.caPem);
    expect(splitPemBundle(await storedBundle())).toHaveLength(2);
  });

  it("keepConversionCaBundle writes the bundle into a CRD's conversion webhook, and again when it changes", async () => {
    const crds = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } };
    await client.create(crds, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.certs.protean.dev' },
      spec: {
        group: 'certs.protean.dev',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          { name: 'v1alpha1', served: true, storage: false, schema },
          { name: 'v1', served: true, storage: true, schema },
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:9443/convert' } },
        },
      },
    });
    const [certs] = replicas(1);
    await started(certs!);
    const stop = await keepConversionCaBundle({ client, crdName: 'gadgets.certs.protean.dev', certificates: certs! });
    const stored = async (): Promise<{ caBundle: string; url: string }> => {
      const crd = await client.get<{
        apiVersion: string;
        kind: string;
        spec: { conversion: { webhook: { clientConfig: { caBundle: string; url: string } } } };
      }>(crds, { name: 'gadgets.certs.protean.dev' });
      const config = crd.spec.conversion.webhook.clientConfig;
      return { caBundle: Buffer.from(config.caBundle, 'base64').toString('utf8'), url: config.url };
    };
    expect(await stored()).toEqual({ caBundle: certs!.caPem, url: 'https://127.0.0.1:9443/convert' });
    const both = await certs!.rotateCa();
    expect((await stored()).caBundle).toBe(both.caPem);
    stop();
  });
});
