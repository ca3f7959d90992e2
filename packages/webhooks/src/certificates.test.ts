import { describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  CertificateRequestError,
  type CertificateKeyPair,
  coversNames,
  createCertificateAuthority,
  createServingCertificate,
  matchesKey,
  signedBy,
  splitPemBundle,
} from './certificates.js';

const DAY = 24 * 3600_000;

/** Serves `pair` over HTTPS on 127.0.0.1 and GETs it once, trusting `ca` and verifying `servername`. */
async function fetchOnce(pair: CertificateKeyPair, ca: string, servername: string): Promise<{ status: number; cn: string }> {
  const server = createServer({ cert: pair.cert, key: pair.key }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', ca, servername, agent: false }, (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, cn: String((res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '') }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('createCertificateAuthority and createServingCertificate', () => {
  it('makes a CA and a serving certificate it signed, for every DNS name and IP address asked, with their validities', async () => {
    const now = new Date();
    const ca = await createCertificateAuthority({ now });
    const serving = await createServingCertificate(ca, {
      dnsNames: ['widget-webhooks.widget-system.svc', 'widget-webhooks.widget-system.svc.cluster.local'],
      ipAddresses: ['127.0.0.1', '::1'],
      now,
    });
    const caCert = new X509Certificate(ca.cert);
    const cert = new X509Certificate(serving.cert);

    expect(caCert.ca).toBe(true);
    expect(caCert.checkIssued(caCert)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth only
    expect(cert.subject).toBe('CN=widget-webhooks.widget-system.svc');
    expect(cert.checkHost('widget-webhooks.widget-system.svc')).toBe('widget-webhooks.widget-system.svc');
    expect(cert.checkHost('widget-webhooks.widget-system.svc.cluster.local')).toBe('widget-webhooks.widget-system.svc.cluster.local');
    expect(cert.checkHost('other.widget-system.svc')).toBeUndefined();
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.checkIP('10.0.0.1')).toBeUndefined();
    expect(matchesKey(serving.cert, serving.key)).toBe(true);
    expect(matchesKey(serving.cert, ca.key)).toBe(false);
    expect(signedBy(serving.cert, ca.cert)).toBe(true);
    expect(coversNames(serving.cert, ['widget-webhooks.widget-system.svc'], ['::1'])).toBe(true);
    expect(coversNames(serving.cert, ['other.svc'], [])).toBe(false);

    // Validity: from a minute before `now` (clock skew), for one year (CA) and 30 days (serving).
    const days = (c: X509Certificate): number => Math.round((Date.parse(c.validTo) - now.getTime()) / DAY);
    expect(days(caCert)).toBe(365);
    expect(days(cert)).toBe(30);
    expect(now.getTime() - Date.parse(cert.validFrom)).toBeGreaterThanOrEqual(59_000);
    expect(now.getTime() - Date.parse(cert.validFrom)).toBeLessThanOrEqual(61_000);
  });

  it('is accepted by an HTTPS client that trusts only the CA, for a DNS name and an address; refused by name or CA otherwise', async () => {
    const ca = await createCertificateAuthority();
    const serving = await createServingCertificate(ca, { dnsNames: ['hooks.demo.svc'], ipAddresses: ['127.0.0.1'] });
    expect(await fetchOnce(serving, ca.cert, 'hooks.demo.svc')).toEqual({ status: 200, cn: 'hooks.demo.svc' });
    // No SNI name: the client checks the address it called.
    expect(await fetchOnce(serving, ca.cert, '')).toEqual({ status: 200, cn: 'hooks.demo.svc' });

    await expect(fetchOnce(serving, ca.cert, 'other.demo.svc')).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const otherCa = await createCertificateAuthority();
    await expect(fetchOnce(serving, otherCa.cert, 'hooks.demo.svc')).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    // A bundle of both CAs trusts it.
    expect((await fetchOnce(serving, otherCa.cert + ca.cert, 'hooks.demo.svc')).status).toBe(200);
  });

  it('ends a serving certificate with its CA at the latest', async () => {
    const now = new Date();
    const ca = await createCertificateAuthority({ now, validityMs: 10 * DAY });
    const serving = await createServingCertificate(ca, { ipAddresses: ['127.0.0.1'], now, validityMs: 30 * DAY });
    expect(new X509Certificate(serving.cert).validTo).toBe(new X509Certificate(ca.cert).validTo);
  });

  it('refuses a certificate without names, with a malformed name or address, or too short a validity', async () => {
    const ca = await createCertificateAuthority();
    await expect(createServingCertificate(ca, {})).rejects.toThrow(CertificateRequestError);
    await expect(createServingCertificate(ca, { ipAddresses: ['300.1.1.1'] })).rejects.toThrow('"300.1.1.1" is not an IP address');
    await expect(createServingCertificate(ca, { dnsNames: ['bad name'] })).rejects.toThrow('"bad name" is not a DNS name');
    await expect(createServingCertificate(ca, { dnsNames: ['a.svc'], validityMs: 10 })).rejects.toThrow('too short');
  });

  it('splits a PEM bundle into its certificates', async () => {
    const [a, b] = await Promise.all([createCertificateAuthority(), createCertificateAuthority()]);
    expect(splitPemBundle(a.cert + b.cert)).toEqual([a.cert, b.cert]);
    expect(splitPemBundle('')).toEqual([]);
  });
});
