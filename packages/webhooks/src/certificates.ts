import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509 from '@peculiar/x509';

/** A certificate and its private key, both PEM (the key PKCS #8). */
export interface CertificateKeyPair {
  /** The certificate, PEM. */
  readonly cert: string;
  /** Its private key, PEM (PKCS #8). */
  readonly key: string;
}

/** Options of {@link createCertificateAuthority}. */
export interface CertificateAuthorityOptions {
  /** The CA's subject common name. Default `protean-webhooks-ca`. */
  readonly commonName?: string;
  /** How long it is valid, in milliseconds. Default one year. */
  readonly validityMs?: number;
  /** When its validity starts (less a minute's allowance for clock skew). Default now. */
  readonly now?: Date;
}

/** Options of {@link createServingCertificate}. */
export interface ServingCertificateOptions {
  /** DNS names the certificate is valid for (a Service's `<name>.<namespace>.svc`, say). */
  readonly dnsNames?: readonly string[];
  /** IP addresses (v4 or v6) the certificate is valid for. */
  readonly ipAddresses?: readonly string[];
  /** The subject common name. Default the first DNS name, else the first IP address. */
  readonly commonName?: string;
  /** How long it is valid, in milliseconds; never past the CA's own end. Default 30 days. */
  readonly validityMs?: number;
  /** When its validity starts (less the skew allowance). Default now. */
  readonly now?: Date;
}

/** A request for a certificate kube-apiserver could not use: no name to verify, or a malformed one. */
export class CertificateRequestError extends TypeError {
  /** `CertificateRequestError`. */
  override readonly name = 'CertificateRequestError';
}

/** One year: the default validity of a CA. */
export const DEFAULT_CA_VALIDITY_MS = 365 * 24 * 3600_000;
/** Thirty days: the default validity of a serving certificate. */
export const DEFAULT_SERVING_VALIDITY_MS = 30 * 24 * 3600_000;
/** A certificate is valid from a little before it was made, so a peer whose clock is behind accepts it at once. */
const MAX_BACKDATE_MS = 60_000;

const ECDSA = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

type X509Module = typeof X509;
let x509Module: Promise<X509Module> | undefined;

/**
 * The X.509 library, loaded on first use: it needs the `Reflect` metadata
 * polyfill, which is loaded with it rather than when this package is
 * imported (a server given its certificate as files never loads either).
 */
function x509(): Promise<X509Module> {
  x509Module ??= import('reflect-metadata').then(() => import('@peculiar/x509'));
  return x509Module;
}

/** Node's WebCrypto, typed as the library takes it. */
const crypto = webcrypto as unknown as NonNullable<Parameters<X509Module['X509CertificateGenerator']['create']>[1]>;

/** A new self-signed CA (ECDSA P-256, SHA-256) that may sign serving certificates only (path length 0). */
export async function createCertificateAuthority(options: CertificateAuthorityOptions = {}): Promise<CertificateKeyPair> {
  const lib = await x509();
  const validityMs = options.validityMs ?? DEFAULT_CA_VALIDITY_MS;
  checkValidity(validityMs);
  const { notBefore, notAfter } = validityWindow(options.now ?? new Date(), validityMs);
  const keys = await crypto.subtle.generateKey(ECDSA, true, ['sign', 'verify']);
  const cert = await lib.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject: `CN=${escapeDn(options.commonName ?? 'protean-webhooks-ca')}`,
      issuer: `CN=${escapeDn(options.commonName ?? 'protean-webhooks-ca')}`,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
      signingAlgorithm: ECDSA,
      extensions: [
        new lib.BasicConstraintsExtension(true, 0, true),
        new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign, true),
        await lib.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { cert: `${cert.toString('pem')}\n`, key: await privateKeyPem(lib, keys.privateKey) };
}

/**
 * A new serving certificate (ECDSA P-256) for `dnsNames` and `ipAddresses`,
 * signed by `ca`: usable for TLS server authentication only. Its validity
 * ends at the CA's end at the latest.
 */
export async function createServingCertificate(ca: CertificateKeyPair, options: ServingCertificateOptions): Promise<CertificateKeyPair> {
  const lib = await x509();
  const dnsNames = options.dnsNames ?? [];
  const ipAddresses = options.ipAddresses ?? [];
  if (dnsNames.length === 0 && ipAddresses.length === 0) {
    throw new CertificateRequestError('a serving certificate needs at least one DNS name or IP address to be verified against');
  }
  for (const ip of ipAddresses) {
    if (isIP(ip) === 0) throw new CertificateRequestError(`${JSON.stringify(ip)} is not an IP address`);
  }
  for (const name of dnsNames) {
    if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(name)) {
      throw new CertificateRequestError(`${JSON.stringify(name)} is not a DNS name`);
    }
  }
  const validityMs = options.validityMs ?? DEFAULT_SERVING_VALIDITY_MS;
  checkValidity(validityMs);
  const caCert = new lib.X509Certificate(ca.cert);
  const caKey = await crypto.subtle.importKey(
    'pkcs8',
    lib.PemConverter.decodeFirst(ca.key),
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['sign'],
  );
  const window = validityWindow(options.now ?? new Date(), validityMs);
  const notAfter = window.notAfter > caCert.notAfter ? caCert.notAfter : window.notAfter;
  const keys = await crypto.subtle.generateKey(ECDSA, true, ['sign', 'verify']);
  const commonName = options.commonName ?? dnsNames[0] ?? ipAddresses[0] ?? '';
  const cert = await lib.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject: `CN=${escapeDn(commonName)}`,
      issuer: caCert.subjectName,
      notBefore: window.notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: ECDSA,
      extensions: [
        new lib.BasicConstraintsExtension(false, undefined, true),
        new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
        new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth]),
        new lib.SubjectAlternativeNameExtension([
          ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
          ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
        ]),
        await lib.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        await lib.AuthorityKeyIdentifierExtension.create(caCert, false, crypto),
      ],
    },
    crypto,
  );
  return { cert: `${cert.toString('pem')}\n`, key: await privateKeyPem(lib, keys.privateKey) };
}

/** The certificates of a PEM bundle, each as its own PEM block. */
export function splitPemBundle(pem: string): string[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => `${m[0]}\n`);
}

/** The validity of a PEM certificate (the first of a bundle), and the certificate. */
export function certificateFacts(pem: string): { readonly notBefore: Date; readonly notAfter: Date; readonly x509: X509Certificate } {
  const cert = new X509Certificate(pem);
  return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo), x509: cert };
}

/** Whether `certPem` is valid for every one of `dnsNames` and `ipAddresses`. */
export function coversNames(certPem: string, dnsNames: readonly string[], ipAddresses: readonly string[]): boolean {
  const cert = new X509Certificate(certPem);
  return dnsNames.every((name) => cert.checkHost(name) !== undefined) && ipAddresses.every((ip) => cert.checkIP(ip) !== undefined);
}

/** Whether `keyPem` is the private key of `certPem`. */
export function matchesKey(certPem: string, keyPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** Whether `certPem` was signed by the CA `caPem`. */
export function signedBy(certPem: string, caPem: string): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(caPem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}

function validityWindow(now: Date, validityMs: number): { notBefore: Date; notAfter: Date } {
  const backdate = Math.min(MAX_BACKDATE_MS, Math.floor(validityMs / 10));
  // X.509 times have whole seconds: round so the window read back is the window asked for.
  const start = Math.floor((now.getTime() - backdate) / 1000) * 1000;
  return { notBefore: new Date(start), notAfter: new Date(Math.floor((now.getTime() + validityMs) / 1000) * 1000) };
}

function checkValidity(validityMs: number): void {
  if (!Number.isFinite(validityMs) || validityMs < 2000) {
    throw new CertificateRequestError(`a validity of ${validityMs} ms is too short: at least 2,000`);
  }
}

async function privateKeyPem(lib: X509Module, key: webcrypto.CryptoKey): Promise<string> {
  return `${lib.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}

/** 16 random bytes, the first bit clear: a positive serial number. */
function serialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

function escapeDn(value: string): string {
  return value.replace(/([,+"\\<>;=#])/g, '\\$1');
}
