import { describe, expect, it } from '@jest/globals';
import { messageWithCauses, serializeError } from './errorSerializer.js';

describe('messageWithCauses', () => {
  it('reads a chain whose messages embed their causes once, not once per level', () => {
    const inner = new Error('WATCH /v1/configmap failed: 404 NotFound: the server could not find the requested resource');
    const middle = new Error(`watch of /v1/configmap: the server answered 404 before the informer synced: ${inner.message}`, {
      cause: inner,
    });
    const outer = new Error(`cannot register parent /v1/configmap: its informer did not sync: ${middle.message}`, { cause: middle });
    expect(messageWithCauses(outer)).toBe(outer.message);
    expect(messageWithCauses(outer).match(/404 NotFound/g)).toHaveLength(1);
  });

  it('still appends a cause the message does not hold, and survives a cycle', () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:6443');
    const err = new Error('list failed', { cause });
    expect(messageWithCauses(err)).toBe('list failed: connect ECONNREFUSED 127.0.0.1:6443');
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(messageWithCauses(a)).toBe('a: b');
  });

  it('is the message pino logs for err', () => {
    const inner = new Error('404 NotFound: x');
    const err = new Error('wrapped: 404 NotFound: x', { cause: inner });
    expect(serializeError(err)).toMatchObject({ type: 'Error', message: 'wrapped: 404 NotFound: x' });
  });
});
