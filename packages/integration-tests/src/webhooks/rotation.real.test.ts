import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import type { Server, TLSSocket } from 'node:tls';
import { KubeClient } from '@protean/client';
import { silentLogger } from '@protean/core';
import { startKubeApiServer, waitUntil, type KubeApiServer } from '@protean/envtest';
import { AdmissionRegistrar, SelfManagedCertificates, WebhookServer } from '@protean/webhooks';
import { splitPemBundle } from '@protean/webhooks/internal';

/*
 * kube-apiserver calling a validating webhook whose certificates SelfManagedCertificates makes and rotates: about
 * 50 ConfigMap creates a second for ~6 s go through the webhook (failurePolicy Fail) while the serving certificate
 * is renewed four times and the CA replaced, the registrar applying each new CA bundle; every create succeeds.
 */

const NAMESPACE = 'rotating';
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const CONFIGURATIONS = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' };

let server: KubeApiServer;
let client: KubeClient;
let certs: SelfManagedCertificates;
let webhooks: WebhookServer;
let registrar: AdmissionRegistrar;
const stop = new AbortController();
let reviewed = 0;
const listenerErrors: unknown[] = [];
/** The fingerprint of the certificate each TLS connection kube-apiserver opened met. */
const handshakes: string[] = [];

beforeAll(async () => {
  server = await startKubeApiServer();
  client = new KubeClient({ kubeConfig: server.kubeConfig });
  certs = new SelfManagedCertificates({
    client,
    namespace: 'default',
    secretName: 'rotation-webhook-certs',
    ipAddresses: ['127.0.0.1'],
    checkIntervalMs: 250,
    // Both CAs stay trusted 1.5 s around the switch: kube-apiserver sees a configuration change within about 0.1 s.
    caOverlapMs: 1_500,
    logger: silentLogger(),
  });
  await certs.start(stop.signal);
  webhooks = new WebhookServer({ tls: certs, port: 0, host: '127.0.0.1', logger: silentLogger() });
  webhooks.validate('/validate-configmaps', (req) => {
    reviewed++;
    const data = (req.object?.['data'] ?? {}) as Record<string, string>;
    return data['forbidden'] === undefined ? { allowed: true } : { allowed: false, message: 'data.forbidden is not allowed here' };
  });
  await webhooks.start();
  // Which certificate each connection met: kube-apiserver keeps a connection open, and opens a new one when a
  // configuration's caBundle changes (a new client for the new trust).
  (webhooks as unknown as { server: Server }).server.on('secureConnection', (socket: TLSSocket) => {
    const local = socket.getCertificate();
    if (local !== null && 'fingerprint256' in local) handshakes.push(local.fingerprint256);
  });
  registrar = new AdmissionRegistrar({ client, name: 'protean-rotation', clientConfig: { url: webhooks.url, caPem: certs.caPem } });
  certs.onChange(async (c) => {
    try {
      await registrar.setCaBundle(c.caPem);
    } catch (err) {
      listenerErrors.push(err);
      throw err;
    }
  });
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMESPACE, labels: { 'rotation.protean.dev/enabled': 'true' } },
  });
}, 60_000);

afterAll(async () => {
  stop.abort();
  await webhooks?.stop();
  client?.close();
  await server?.stop();
});

describe('self-managed webhook certificates rotated under load, called by kube-apiserver', () => {
  it('loses no create while the serving certificate is renewed and the CA replaced', async () => {
    await registrar.register(CONFIGMAPS, [
      {
        type: 'validating',
        path: '/validate-configmaps',
        failurePolicy: 'Fail',
        timeoutSeconds: 5,
        namespaceSelector: { matchLabels: { 'rotation.protean.dev/enabled': 'true' } },
      },
    ]);
    let n = 0;
    const create = async (data: Record<string, string>): Promise<{ ok: true } | { ok: false; message: string }> => {
      try {
        await client.create(CONFIGMAPS, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${n++}`, namespace: NAMESPACE },
          data,
        });
        return { ok: true };
      } catch (err) {
        return { ok: false, message: err instanceof Error ? err.message : String(err) };
      }
    };
    let denial = '';
    await waitUntil(
      async () => {
        const r = await create({ forbidden: 'x' });
        denial = r.ok ? '' : r.message;
        return !r.ok;
      },
      'the validating webhook in force',
      15_000,
    );
    expect(denial).toContain('data.forbidden is not allowed here');

    const firstCa = certs.caPem;
    const handshakesBefore = handshakes.length;
    const reviewedBefore = reviewed;
    const failures: string[] = [];
    let created = 0;
    const inFlight: Promise<void>[] = [];
    const load = setInterval(() => {
      inFlight.push(
        create({ fine: 'y' }).then((r) => {
          if (r.ok) created++;
          else failures.push(r.message);
        }),
      );
    }, 20);
    const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
    const servingCerts = new Set<string>([certs.current()!.cert]);
    const bundles: number[] = [];
    let newCa = '';
    try {
      await pause(600);
      servingCerts.add((await certs.rotate()).cert);
      await pause(600);
      servingCerts.add((await certs.rotate()).cert);
      await pause(300);
      // The new CA joins the bundle (the registrar applies it before rotateCa resolves), signs 1.5 s later, and the
      // old one leaves the bundle 1.5 s after that.
      const both = await certs.rotateCa();
      bundles.push(splitPemBundle(both.caPem).length);
      newCa = splitPemBundle(both.caPem)[1]!;
      await waitUntil(() => Promise.resolve(certs.caPem === newCa), 'the old CA out of the bundle', 15_000);
      bundles.push(splitPemBundle(certs.caPem).length);
      servingCerts.add(certs.current()!.cert);
      await pause(300);
      servingCerts.add((await certs.rotate()).cert);
      await pause(600);
      servingCerts.add((await certs.rotate()).cert);
      await pause(300);
    } finally {
      clearInterval(load);
      await Promise.all(inFlight);
    }
    console.log(
      `rotation under load: ${created} creates, ${failures.length} refused, ${reviewed - reviewedBefore} reviews, ` +
        `${servingCerts.size} serving certificates, CA bundle sizes ${bundles.join(' -> ')}, ` +
        `${handshakes.length - handshakesBefore} TLS connections from kube-apiserver`,
    );
    expect(failures).toEqual([]);
    // The load ran through the rotations (about 50 a second for about 6 s; a busy machine sends fewer).
    expect(created).toBeGreaterThan(100);
    // Every create was reviewed by the webhook (the namespace is selected, failurePolicy Fail).
    expect(reviewed - reviewedBefore).toBeGreaterThanOrEqual(created);
    expect(listenerErrors).toEqual([]);
    // Four renewals and the new CA's certificate.
    expect(servingCerts.size).toBeGreaterThanOrEqual(6);
    expect(bundles).toEqual([2, 1]);
    // kube-apiserver met the new CA's certificates on new connections: the switch was exercised, not skipped.
    const byNewCa = new Set(
      [...servingCerts]
        .filter((pem) => new X509Certificate(pem).verify(new X509Certificate(newCa).publicKey))
        .map((pem) => new X509Certificate(pem).fingerprint256),
    );
    const during = handshakes.slice(handshakesBefore);
    expect(during.filter((f) => byNewCa.has(f)).length).toBeGreaterThanOrEqual(1);
    expect(certs.caPem).not.toBe(firstCa);
    // The configuration kube-apiserver uses trusts the new CA alone.
    const stored = await client.get<{ apiVersion: string; kind: string; webhooks: { clientConfig: { caBundle: string } }[] }>(
      CONFIGURATIONS,
      { name: 'protean-rotation' },
    );
    expect(Buffer.from(stored.webhooks[0]!.clientConfig.caBundle, 'base64').toString('utf8')).toBe(newCa);
  }, 90_000);
});
