import { describe, expect, it } from '@jest/globals';
import { apiStatusOf, errorMessage, summarizeError } from './apiStatus.js';
import { isNotFound } from './isNotFound.js';

/** Shaped like client-node 1.4/2.x's ApiException: numeric code, Status body as a JSON string, headers, a long message. */
class ApiExceptionLike extends Error {
  constructor(
    readonly code: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = { 'content-type': 'application/json', 'audit-id': 'x'.repeat(36) },
  ) {
    super(`HTTP-Code: ${code}\nMessage: Unknown API Status Code!\nBody: ${JSON.stringify(body)}\nHeaders: ${JSON.stringify(headers)}`);
  }
}

const notFoundBody = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'configmaps "x" not found',
  reason: 'NotFound',
  code: 404,
});

describe('apiStatusOf', () => {
  it('reads code, reason and message of a client-node ApiException with a string body', () => {
    expect(apiStatusOf(new ApiExceptionLike(404, notFoundBody))).toEqual({
      code: 404,
      reason: 'NotFound',
      message: 'configmaps "x" not found',
    });
  });

  it('reads an object body, a status field, a statusCode field and a response status', () => {
    expect(apiStatusOf({ code: 409, body: { reason: 'Conflict', message: 'the object has been modified' } })).toEqual({
      code: 409,
      reason: 'Conflict',
      message: 'the object has been modified',
    });
    expect(apiStatusOf({ status: 429 })).toEqual({ code: 429 });
    expect(apiStatusOf({ statusCode: 503 })).toEqual({ code: 503 });
    expect(apiStatusOf({ response: { status: 401 } })).toEqual({ code: 401 });
  });

  it('follows cause to a wrapped API error', () => {
    const wrapped = new Error('reading the WebApp failed', { cause: new ApiExceptionLike(403, '{"reason":"Forbidden","message":"no"}') });
    expect(apiStatusOf(wrapped)).toEqual({ code: 403, reason: 'Forbidden', message: 'no' });
  });

  it('is undefined for network errors with a string code and for plain errors', () => {
    expect(apiStatusOf(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(apiStatusOf(new Error('boom'))).toBeUndefined();
    expect(apiStatusOf('boom')).toBeUndefined();
    expect(apiStatusOf({ code: 42 })).toBeUndefined();
  });
});

describe('summarizeError', () => {
  it('gives one short line with status, reason and message for an ApiException, without headers or body', () => {
    const err = new ApiExceptionLike(404, notFoundBody);
    expect(err.message.length).toBeGreaterThan(200);
    expect(summarizeError(err)).toBe('404 NotFound: configmaps "x" not found');
  });

  it('summarizes a wrapped API error by the inner status', () => {
    const err = new Error('apply failed', {
      cause: new ApiExceptionLike(409, { reason: 'Conflict', message: 'conflict with "alice": .data.a' }),
    });
    expect(summarizeError(err)).toBe('409 Conflict: conflict with "alice": .data.a');
  });

  it('falls back to the message when the body says nothing', () => {
    expect(summarizeError(Object.assign(new Error('upstream timed out'), { status: 504 }))).toBe('504: upstream timed out');
    expect(summarizeError(new ApiExceptionLike(500, 'not json'))).toBe('500');
  });

  it('gives name and first line of a plain error, truncated', () => {
    expect(summarizeError(new TypeError('x is undefined\n    at f (file.js:1:1)'))).toBe('TypeError: x is undefined');
    expect(summarizeError(new Error('y'.repeat(1000))).length).toBeLessThan(320);
    expect(summarizeError('thrown string')).toBe('thrown string');
  });
});

describe('isNotFound', () => {
  it('is true for a 404 anywhere in the cause chain, false otherwise', () => {
    expect(isNotFound(new ApiExceptionLike(404, notFoundBody))).toBe(true);
    expect(isNotFound(new Error('outer', { cause: { status: 500, cause: { statusCode: 404 } } }))).toBe(true);
    expect(isNotFound({ code: 410, body: { reason: 'NotFound' } })).toBe(true);
    expect(isNotFound(new ApiExceptionLike(409, '{}'))).toBe(false);
    expect(isNotFound(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(false);
  });
});

describe('errorMessage', () => {
  it('is the message of an Error and the string of anything else', () => {
    expect(errorMessage(new RangeError('too big'))).toBe('too big');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});
