import type * as https from 'node:https';
import type * as tls from 'node:tls';

/** The TLS settings of a connection: what `applyToHTTPSOptions` put on the request options. */
export type TlsSettings = Pick<tls.ConnectionOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'servername' | 'rejectUnauthorized'>;

const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername', 'rejectUnauthorized'] as const;

/** The TLS settings among `options` (only those that are set). */
export function tlsSettingsOf(options: https.RequestOptions): TlsSettings {
  const out: Record<string, unknown> = {};
  for (const f of TLS_FIELDS) if (options[f] !== undefined) out[f] = options[f];
  return out as TlsSettings;
}

/**
 * Whether two TLS settings are the same identity (ca, client certificate
 * and key, servername, verification): two requests to one origin share a
 * connection exactly when they are, so a rotated certificate gets a new one.
 * Buffers and strings compare by their bytes, arrays element by element, the
 * `{ pem, passphrase }` entries of `key` (`{ buf, passphrase }` of `pfx`)
 * member by member. A comparison, not a digest: the pool checks every
 * request, and hashing loaded `node:crypto` and cost more than the request.
 */
export function sameTlsSettings(a: TlsSettings, b: TlsSettings): boolean {
  for (const f of TLS_FIELDS) if (!sameValue(a[f], b[f])) return false;
  return true;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (isBytes(a) && isBytes(b)) return bytesOf(a).equals(bytesOf(b));
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || isBytes(a) || isBytes(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function isBytes(v: unknown): v is Buffer | string {
  return typeof v === 'string' || Buffer.isBuffer(v);
}

function bytesOf(v: Buffer | string): Buffer {
  return typeof v === 'string' ? Buffer.from(v) : v;
}
