import { describe, expect, it } from '@jest/globals';
import { networkErrorCause } from './networkErrorCause.js';

const coded = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('networkErrorCause', () => {
  it('names the socket error codes of a reset, a refusal and a timeout', () => {
    expect(networkErrorCause(coded('ECONNRESET'))).toBe('ECONNRESET');
    expect(networkErrorCause(coded('ECONNREFUSED'))).toBe('ECONNREFUSED');
    expect(networkErrorCause(coded('ETIMEDOUT'))).toBe('ETIMEDOUT');
  });

  it('names an HTTP/2 GOAWAY by its code or its message', () => {
    expect(networkErrorCause(coded('ERR_HTTP2_GOAWAY_SESSION'))).toBe('GOAWAY');
    expect(networkErrorCause(new Error('New streams cannot be created after receiving a GOAWAY'))).toBe('GOAWAY');
  });

  it("names the transport's failure by the socket's code down its cause chain, else by its reason", () => {
    const transport = (cause?: Error): Error =>
      Object.assign(new Error('GET /api/v1/pods: ConnectionReset: socket hang up', { cause }), {
        name: 'KubeTransportError',
        reason: 'ConnectionReset',
      });
    expect(networkErrorCause(transport(coded('ECONNRESET')))).toBe('ECONNRESET');
    expect(networkErrorCause(transport())).toBe('ConnectionReset');
    expect(networkErrorCause(transport(new Error('socket hang up')))).toBe('ConnectionReset');
    expect(networkErrorCause(new Error('reconcile failed', { cause: coded('ECONNREFUSED') }))).toBe('ECONNREFUSED');
  });

  it("names a request error's code down its chain first, else its network reason (a stalled watch, an uncoded socket failure)", () => {
    const request = (reason: string, cause?: Error): Error =>
      Object.assign(new Error(`WATCH example.com/v1/kinds: ${reason}`, { cause }), { name: 'KubernetesRequestError', reason });
    expect(networkErrorCause(request('ConnectionReset', coded('ERR_HTTP2_GOAWAY_SESSION', 'session closed')))).toBe('GOAWAY');
    expect(networkErrorCause(request('NetworkError', coded('ENOTFOUND')))).toBe('ENOTFOUND');
    expect(networkErrorCause(request('NetworkError', new Error('fetch failed')))).toBe('NetworkError');
    expect(networkErrorCause(request('InactivityTimeout'))).toBe('InactivityTimeout');
    expect(networkErrorCause(request('InvalidResponse'))).toBeUndefined();
    expect(networkErrorCause(request('CredentialsError'))).toBeUndefined();
  });

  it('is undefined for API errors, transport credential errors and plain errors', () => {
    expect(networkErrorCause(Object.assign(new Error('GOAWAY while reading'), { code: 503 }))).toBeUndefined();
    expect(networkErrorCause(Object.assign(new Error('x'), { name: 'KubeTransportError', reason: 'CredentialsError' }))).toBeUndefined();
    expect(networkErrorCause(new TypeError('x is undefined'))).toBeUndefined();
    expect(networkErrorCause('ECONNRESET')).toBeUndefined();
  });
});
