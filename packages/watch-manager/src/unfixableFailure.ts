/**
 * A list/watch failure that waiting will not fix: the API server's
 * certificate does not verify against the KubeConfig's CA (wrong CA,
 * self-signed, expired, hostname mismatch), or nothing listens at the
 * server URL (connection refused).
 */
export type UnfixableFailureKind = 'TlsVerificationFailed' | 'ConnectionRefused';

/** OpenSSL verification codes and Node's hostname check: the certificate chain, not the network, is wrong. */
const TLS_VERIFICATION_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'INVALID_CA',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const MAX_DEPTH = 8;

/**
 * The kind of `err` if it is a failure waiting will not fix, found by the
 * Node error `code` anywhere in its `cause` chain; `undefined` for every
 * other failure (timeouts, resets, HTTP statuses: those are retried).
 *
 * Easy to get wrong: a refused connection is unfixable only if it repeats;
 * a server that is restarting refuses for a moment too. The caller decides
 * how long "every attempt" must last (`InformerWatchManagerOptions.failFastMs`).
 */
export function unfixableFailureKind(err: unknown): UnfixableFailureKind | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < MAX_DEPTH && cur !== null && typeof cur === 'object'; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (TLS_VERIFICATION_CODES.has(code)) return 'TlsVerificationFailed';
      if (code === 'ECONNREFUSED') return 'ConnectionRefused';
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The innermost error of `err`'s `cause` chain (the socket's own words), or
 * `err` itself. Duck-typed: errors raised by Node's own modules may come
 * from another realm (a test VM context), where `instanceof Error` fails.
 */
export function rootCause(err: Error): { readonly message: string } {
  let cur: { readonly message: string; readonly cause?: unknown } = err;
  for (let depth = 0; depth < MAX_DEPTH && isErrorLike(cur.cause); depth++) cur = cur.cause;
  return cur;
}

function isErrorLike(value: unknown): value is { readonly message: string; readonly cause?: unknown } {
  return value !== null && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string';
}

/** The first `server` URL carried by `err` or its causes (see `KubernetesRequestError.server`). */
export function serverOf(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < MAX_DEPTH && cur !== null && typeof cur === 'object'; depth++) {
    const server = (cur as { server?: unknown }).server;
    if (typeof server === 'string' && server !== '') return server;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}
