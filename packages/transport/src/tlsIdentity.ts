import type { Hash } from 'node:crypto';
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
 * A digest of the origin and the TLS identity (ca, client certificate and
 * key, servername, verification): two requests share a connection exactly
 * when their keys are equal, so a rotated certificate gets a new one.
 */
export function identityKey(origin: string, settings: TlsSettings): string {
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  hash.update(origin);
  for (const f of TLS_FIELDS) {
    hash.update(`\0${f}=`);
    feed(hash, settings[f]);
  }
  return `${origin}#${hash.digest('hex').slice(0, 32)}`;
}

function feed(hash: Hash, value: unknown): void {
  if (value === undefined) hash.update('-');
  else if (Array.isArray(value)) {
    hash.update(`[${value.length}]`);
    for (const v of value) feed(hash, v);
  } else if (Buffer.isBuffer(value) || typeof value === 'string') {
    hash.update(`${value.length}:`);
    hash.update(value);
  } else if (typeof value === 'object' && value !== null) {
    // `{ pem, passphrase }` entries of `key`, `{ buf, passphrase }` of `pfx`.
    hash.update(JSON.stringify(value));
  } else hash.update(String(value));
}
