import { describe, expect, it } from '@jest/globals';
import { rootCause, serverOf, unfixableFailureKind } from './unfixableFailure.js';

const coded = (code: string, message = code): Error => Object.assign(new Error(message), { code });
const wrapped = (inner: unknown): Error => new Error('outer', { cause: new Error('middle', { cause: inner }) });

describe('unfixableFailureKind', () => {
  it.each([
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'CERT_HAS_EXPIRED',
  ])('classes %s anywhere in the cause chain as a TLS verification failure', (code) => {
    expect(unfixableFailureKind(wrapped(coded(code)))).toBe('TlsVerificationFailed');
  });

  it('classes ECONNREFUSED as a refused connection', () => {
    expect(unfixableFailureKind(wrapped(coded('ECONNREFUSED')))).toBe('ConnectionRefused');
  });

  it.each(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ERR_HTTP2_GOAWAY_SESSION', 'ENOTFOUND'])('leaves %s to the retries', (code) => {
    expect(unfixableFailureKind(wrapped(coded(code)))).toBeUndefined();
  });

  it('leaves errors without a code, and non-errors, to the retries', () => {
    expect(unfixableFailureKind(new Error('500 internal'))).toBeUndefined();
    expect(unfixableFailureKind('ECONNREFUSED')).toBeUndefined();
    expect(unfixableFailureKind(undefined)).toBeUndefined();
  });
});

describe('rootCause and serverOf', () => {
  it('finds the innermost error and the first server URL of a chain', () => {
    const inner = coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1');
    const outer = Object.assign(wrapped(inner), { server: 'https://127.0.0.1:1' });
    expect(rootCause(outer)).toBe(inner);
    expect(serverOf(outer)).toBe('https://127.0.0.1:1');
    expect(serverOf(new Error('x'))).toBeUndefined();
  });

  it('follows causes that are error-like objects from another realm', () => {
    const foreign = { message: 'unable to verify the first certificate', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' };
    expect(rootCause(new Error('outer', { cause: foreign }))).toBe(foreign);
  });
});
