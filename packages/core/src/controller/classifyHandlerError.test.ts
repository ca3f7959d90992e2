import { describe, expect, it } from '@jest/globals';
import { requeue, RequeueWhen } from '../requeue.js';
import { StaleReadError } from '../StaleReadError.js';
import { classifyHandlerError } from './classifyHandlerError.js';
import { ShutdownTimeoutError } from './ShutdownTimeoutError.js';

describe('classifyHandlerError', () => {
  it('maps each requeue signal, before its subclass check could mislabel RequeueNeededAfter', () => {
    expect(classifyHandlerError(requeue.none(new Error('x')))).toEqual({ kind: 'no_requeue' });
    expect(classifyHandlerError(requeue.needed())).toEqual({ kind: 'requeue' });
    expect(classifyHandlerError(requeue.neededAfter(null, 250))).toEqual({ kind: 'requeue_after', delayMs: 250 });
  });

  it('a write refused by its precondition (StaleReadError) runs again at once; RequeueWhen waits on its own promise, before RequeueNeeded could take it', () => {
    const gvr = { group: '', version: 'v1', resource: 'configmaps' };
    const conflict = Object.assign(new Error('409'), { status: 409 });
    expect(classifyHandlerError(new StaleReadError('PATCH configmaps a/b', gvr, 'a', 'b', '7', conflict))).toEqual({ kind: 'requeue' });
    const ready = (): Promise<void> => Promise.resolve();
    expect(classifyHandlerError(new Error('wrapped', { cause: new RequeueWhen('lease', ready) }))).toEqual({ kind: 'requeue_when', ready });
    expect(() => new RequeueWhen('x', undefined as never)).toThrow(/ready must be a function/);
  });

  it('finds a requeue signal in the cause chain, as errors.As does', () => {
    const wrapped = new Error('outer', { cause: new Error('middle', { cause: requeue.neededAfter(null, 5) }) });
    expect(classifyHandlerError(wrapped)).toEqual({ kind: 'requeue_after', delayMs: 5 });
  });

  it('prefers a requeue signal over a NotFound it wraps, and recognises a bare NotFound', () => {
    const notFound = Object.assign(new Error('gone'), { code: 404 });
    expect(classifyHandlerError(requeue.none(notFound))).toEqual({ kind: 'no_requeue' });
    expect(classifyHandlerError(notFound)).toEqual({ kind: 'not_found' });
    expect(classifyHandlerError(new Error('wrap', { cause: notFound }))).toEqual({ kind: 'not_found' });
  });

  it('classifies anything else, including non-Error values, as a plain error', () => {
    expect(classifyHandlerError(new Error('boom'))).toEqual({ kind: 'error' });
    expect(classifyHandlerError('a string')).toEqual({ kind: 'error' });
    expect(classifyHandlerError(undefined)).toEqual({ kind: 'error' });
  });
});

describe('ShutdownTimeoutError', () => {
  it('names the timeout and the in-flight items, eliding past ten', () => {
    const items = Array.from({ length: 12 }, (_, i) => `g/v1/r|ns/i${i}`);
    const err = new ShutdownTimeoutError(500, items);
    expect(err.name).toBe('ShutdownTimeoutError');
    expect(err.message).toContain('queueShutdownTimeoutMs=500ms');
    expect(err.message).toContain('12 handler(s)');
    expect(err.message).toContain('g/v1/r|ns/i9 and 2 more');
    expect(err.inFlight).toHaveLength(12);
  });
});
