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

  it("names the transport's failure reason, and finds causes down the cause chain", () => {
    const transport = Object.assign(new Error('GET /api/v1/pods: ConnectionReset: socket hang up', { cause: coded('ECONNRESET') }), {
      name: 'KubeTransportError',
      reason: 'ConnectionReset',
    });
    expect(networkErrorCause(transport)).toBe('ConnectionReset');
    expect(networkErrorCause(new Error('reconcile failed', { cause: coded('ECONNREFUSED') }))).toBe('ECONNREFUSED');
  });

  it('is undefined for API errors, transport credential errors and plain errors', () => {
    expect(networkErrorCause(Object.assign(new Error('GOAWAY while reading'), { code: 503 }))).toBeUndefined();
    expect(networkErrorCause(Object.assign(new Error('x'), { name: 'KubeTransportError', reason: 'CredentialsError' }))).toBeUndefined();
    expect(networkErrorCause(new TypeError('x is undefined'))).toBeUndefined();
    expect(networkErrorCause('ECONNRESET')).toBeUndefined();
  });
});
