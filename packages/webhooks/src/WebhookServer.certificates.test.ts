import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type ClientHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { KubeClient } from '@protean/client';
import { silentLogger } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { createCertificateAuthority, createServingCertificate, splitPemBundle } from './certificates.js';
import { SelfManagedCertificates } from './SelfManagedCertificates.js';
import { WebhookServer } from './WebhookServer.js';

let apiServer: InMemoryApiServer;
let client: KubeClient;
beforeAll(async () => {
  apiServer = await InMemoryApiServer.start();
  client = new KubeClient({ kubeConfig: apiServer.kubeConfig() });
});
afterAll(async () => {
  client.close();
  await apiServer.stop();
});

function review(uid: string): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'cm',
      namespace: 'demo',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'demo' } },
    },
  });
}

/** POSTs one review over `session`; resolves with the status and the review answered. */
function post(session: ClientHttp2Session, uid: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ':path': '/validate', 'content-type': 'application/json' });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      try {
        resolve({ status, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    stream.on('error', reject);
    stream.end(review(uid));
  });
}

/** Opens an HTTP/2 session trusting only `ca`; resolves once the TLS handshake is done, with the certificate served. */
function session(url: string, ca: string): Promise<{ session: ClientHttp2Session; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(url, { ca });
    s.once('error', reject);
    s.once('connect', () => {
      s.off('error', reject);
      s.on('error', () => {});
      resolve({ session: s, fingerprint: (s.socket as TLSSocket).getPeerCertificate().fingerprint256 });
    });
  });
}

describe('WebhookServer serving SelfManagedCertificates', () => {
  it('answers every request of ~50 per second over HTTP/2 while the serving certificate is renewed and the CA replaced', async () => {
    const stop = new AbortController();
    const certs = new SelfManagedCertificates({
      client,
      namespace: 'default',
      secretName: 'webhook-server-certs',
      ipAddresses: ['127.0.0.1'],
      checkIntervalMs: 50,
      caOverlapMs: 400,
      logger: silentLogger(),
    });
    await certs.start(stop.signal);
    // The client learns of a new bundle 100 ms late, as kube-apiserver would from its informer (and within caOverlapMs).
    let trusted = certs.caPem;
    certs.onChange((c) => void setTimeout(() => (trusted = c.caPem), 100));
    const server = new WebhookServer({ tls: certs, port: 0, host: '127.0.0.1', logger: silentLogger() });
    server.validate('/validate', () => ({ allowed: true }));
    const url = await server.start();

    // One session open from the start: it keeps the certificate it met, and its requests keep being answered.
    const longLived = await session(url, trusted);
    const failures: string[] = [];
    const served = new Set<string>();
    let answered = 0;
    let sent = 0;
    const one = async (kept: boolean): Promise<void> => {
      const uid = `u-${sent++}`;
      let s: ClientHttp2Session | undefined;
      try {
        let reply: { status: number; body: Record<string, unknown> };
        if (kept) {
          reply = await post(longLived.session, uid);
        } else {
          const opened = await session(url, trusted);
          s = opened.session;
          served.add(opened.fingerprint);
          reply = await post(s, uid);
        }
        const response = reply.body['response'] as { uid?: string; allowed?: boolean } | undefined;
        if (reply.status !== 200 || reply.body['kind'] !== 'AdmissionReview' || response?.uid !== uid || response.allowed !== true) {
          failures.push(`${uid}: ${reply.status} ${JSON.stringify(reply.body)}`);
        } else {
          answered++;
        }
      } catch (err) {
        failures.push(`${uid}: ${String(err)}`);
      } finally {
        s?.close();
      }
    };
    const inFlight: Promise<void>[] = [];
    let tick = 0;
    const load = setInterval(() => inFlight.push(one(tick++ % 5 === 0)), 20);

    try {
      const rotations: string[] = [];
      const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
      await pause(300);
      for (let i = 0; i < 3; i++) {
        rotations.push((await certs.rotate()).cert);
        await pause(300);
      }
      const oldCa = certs.caPem;
      const [, newCa] = splitPemBundle((await certs.rotateCa()).caPem);
      // The checks carry the replacement on: the new CA signs, then the old one leaves the bundle.
      await waitFor(() => certs.caPem === newCa, { timeoutMs: 10_000 });
      await pause(300);
      rotations.push((await certs.rotate()).cert);
      await pause(300);
      expect(new Set(rotations).size).toBe(4);
      expect(oldCa).not.toBe(newCa);
    } finally {
      clearInterval(load);
      await Promise.all(inFlight);
      longLived.session.close();
      stop.abort();
      await server.stop();
    }
    expect(failures).toEqual([]);
    expect(answered).toBe(sent);
    expect(sent).toBeGreaterThan(100);
    // At least four serving certificates met by new sessions: three renewals, the new CA's, one more renewal.
    expect(served.size).toBeGreaterThanOrEqual(5);
  }, 30_000);

  it('setCertificate swaps the pair for new connections; a pair that does not load throws and the old one stays', async () => {
    const ca = await createCertificateAuthority();
    const first = await createServingCertificate(ca, { ipAddresses: ['127.0.0.1'] });
    const second = await createServingCertificate(ca, { ipAddresses: ['127.0.0.1'] });
    const server = new WebhookServer({ tls: first, port: 0, host: '127.0.0.1', logger: silentLogger() });
    server.validate('/validate', () => ({ allowed: true }));
    const url = await server.start();
    try {
      const before = await session(url, ca.cert);
      server.setCertificate(second);
      const after = await session(url, ca.cert);
      expect(after.fingerprint).not.toBe(before.fingerprint);
      // The session opened before still works, with the certificate it met.
      expect((await post(before.session, 'u-1')).status).toBe(200);
      expect((await post(after.session, 'u-2')).status).toBe(200);
      expect(() => server.setCertificate({ cert: second.cert, key: first.key })).toThrow();
      const still = await session(url, ca.cert);
      expect(still.fingerprint).toBe(after.fingerprint);
      for (const s of [before, after, still]) s.session.close();
    } finally {
      await server.stop();
    }
  });

  it('serves the source’s latest pair when started again, one that changed while it was stopped included', async () => {
    const ca = await createCertificateAuthority();
    let pair = await createServingCertificate(ca, { ipAddresses: ['127.0.0.1'] });
    let tell: ((c: { cert: string; key: string; caPem: string }) => void) | undefined;
    const source = {
      current: () => ({ ...pair, caPem: ca.cert }),
      onChange: (listener: (c: { cert: string; key: string; caPem: string }) => void) => {
        tell = listener;
        return () => (tell = undefined);
      },
    };
    const server = new WebhookServer({ tls: source, port: 0, host: '127.0.0.1', logger: silentLogger() });
    server.validate('/validate', () => ({ allowed: true }));
    const url = await server.start();
    tell?.({ ...pair, caPem: ca.cert }); // a change heard while running: the server keeps that pair
    const first = await session(url, ca.cert);
    first.session.close();
    await server.stop();
    pair = await createServingCertificate(ca, { ipAddresses: ['127.0.0.1'] });
    const again = await session(await server.start(), ca.cert);
    try {
      expect(again.fingerprint).not.toBe(first.fingerprint);
      expect((await post(again.session, 'u-3')).status).toBe(200);
    } finally {
      again.session.close();
      await server.stop();
    }
  });

  it('refuses to start on a certificate source that has no certificate yet', async () => {
    const certs = new SelfManagedCertificates({ client, namespace: 'default', secretName: 'never-started', ipAddresses: ['127.0.0.1'] });
    const server = new WebhookServer({ tls: certs, port: 0, host: '127.0.0.1', logger: silentLogger() });
    await expect(server.start()).rejects.toThrow('the certificate source has no certificate yet');
  });
});
