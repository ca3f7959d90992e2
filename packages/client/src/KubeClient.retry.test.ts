import { describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { KubeApiError } from './KubeApiError.js';
import { KubeClient } from './KubeClient.js';
import { KubeClientClosedError } from './KubeClientClosedError.js';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';
import { KubeTransportError } from './KubeTransportError.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const key = { namespace: 'default', name: 'a' };
const OK: KubeHttpResponse = {
  status: 200,
  headers: {},
  body: JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' } }),
};

type Answer = KubeHttpResponse | KubeTransportError | ((req: KubeHttpRequest) => Promise<KubeHttpResponse>);

/** A transport that answers from a script, one entry per request, and records what it was sent and when. */
class ScriptedTransport implements KubeTransport {
  readonly sent: Array<{ request: KubeHttpRequest; atMs: number }> = [];
  private readonly started = performance.now();

  constructor(private readonly script: Answer[]) {}

  send(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    this.sent.push({ request, atMs: performance.now() - this.started });
    const answer = this.script.shift() ?? OK;
    if (answer instanceof KubeTransportError) return Promise.reject(answer);
    if (typeof answer === 'function') return answer(request);
    return Promise.resolve(answer);
  }
}

function status(code: number, reason: string, headers: Record<string, string> = {}): KubeHttpResponse {
  return {
    status: code,
    headers,
    body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: `${reason} (test)` }),
  };
}

const reset = (): KubeTransportError => new KubeTransportError('GET', '/x', 'ConnectionReset', 'socket hang up');
const refused = (): KubeTransportError => new KubeTransportError('POST', '/x', 'ConnectionRefused', 'connect ECONNREFUSED');

function clientOver(transport: KubeTransport, retries = 3): KubeClient {
  return new KubeClient({ transport, retry: { retries, minDelayMs: 1, maxDelayMs: 2 } });
}

describe('KubeClient retries', () => {
  it('stops retrying when the client is closed: the request waiting for its next attempt rejects at once, and so do later ones', async () => {
    const transport = new ScriptedTransport([reset(), reset(), reset()]);
    // A long backoff: only close() can end the wait.
    const client = new KubeClient({ transport, retry: { retries: 5, minDelayMs: 60_000, maxDelayMs: 60_000 } });
    const pending = client.get(configmaps, key);
    await waitFor(() => transport.sent.length === 1);
    client.close();
    await expect(pending).rejects.toBeInstanceOf(KubeClientClosedError);
    expect(transport.sent).toHaveLength(1);
    await expect(client.get(configmaps, key)).rejects.toBeInstanceOf(KubeClientClosedError);
    expect(transport.sent).toHaveLength(1);
  });

  it('retries a 429 after the Retry-After the server asked for', async () => {
    const transport = new ScriptedTransport([status(429, 'TooManyRequests', { 'retry-after': '0.05' })]);
    const cm = await clientOver(transport).get(configmaps, key);
    expect(cm.metadata?.name).toBe('a');
    expect(transport.sent).toHaveLength(2);
    expect(transport.sent[1]!.atMs - transport.sent[0]!.atMs).toBeGreaterThanOrEqual(45);
  });

  it('retries 5xx and reset connections of idempotent requests with backoff, at most `retries` times', async () => {
    const transport = new ScriptedTransport([
      status(503, 'ServiceUnavailable'),
      reset(),
      status(500, 'InternalError'),
      status(502, 'BadGateway'),
    ]);
    const err = await clientOver(transport, 3)
      .get(configmaps, key)
      .catch((e: unknown) => e);
    expect(transport.sent).toHaveLength(4);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ status: 502 });
  });

  it('succeeds once a transient failure clears', async () => {
    const transport = new ScriptedTransport([status(504, 'Timeout'), reset()]);
    await clientOver(transport).update(configmaps, { metadata: { name: 'a', namespace: 'default', resourceVersion: '1' } });
    expect(transport.sent.map((s) => s.request.method)).toEqual(['PUT', 'PUT', 'PUT']);
  });

  it('does not retry a create after a 5xx or a reset connection (it may have been carried out)', async () => {
    for (const failure of [status(500, 'InternalError'), reset()]) {
      const transport = new ScriptedTransport([failure]);
      await expect(clientOver(transport).create(configmaps, { metadata: { name: 'a', namespace: 'default' } })).rejects.toBeDefined();
      expect(transport.sent).toHaveLength(1);
    }
  });

  it('retries a create that was refused a connection or throttled (the server did not act on it)', async () => {
    const transport = new ScriptedTransport([refused(), status(429, 'TooManyRequests', { 'retry-after': '0' }), { ...OK, status: 201 }]);
    await clientOver(transport).create(configmaps, { metadata: { name: 'a', namespace: 'default' } });
    expect(transport.sent).toHaveLength(3);
  });

  it('does not retry JSON patches after a 5xx', async () => {
    const transport = new ScriptedTransport([status(503, 'ServiceUnavailable')]);
    await expect(
      clientOver(transport).patch(configmaps, key, [{ op: 'add', path: '/data/x', value: '1' }], { type: 'json' }),
    ).rejects.toMatchObject({ status: 503 });
    expect(transport.sent).toHaveLength(1);
  });

  it('never retries 4xx answers other than 429, 409 Conflict included', async () => {
    for (const [code, reason] of [
      [400, 'BadRequest'],
      [403, 'Forbidden'],
      [404, 'NotFound'],
      [409, 'Conflict'],
      [422, 'Invalid'],
    ] as const) {
      const transport = new ScriptedTransport([status(code, reason)]);
      await expect(clientOver(transport).get(configmaps, key)).rejects.toMatchObject({ status: code, reason });
      expect(transport.sent).toHaveLength(1);
    }
  });

  it('fails at once when the server asks to wait longer than maxRetryAfterMs', async () => {
    const transport = new ScriptedTransport([status(429, 'TooManyRequests', { 'retry-after': '120' })]);
    const client = new KubeClient({ transport, retry: { maxRetryAfterMs: 1_000 } });
    await expect(client.get(configmaps, key)).rejects.toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(transport.sent).toHaveLength(1);
  });

  it('bounds throttled retries by `retries` too', async () => {
    const throttled = (): KubeHttpResponse => status(429, 'TooManyRequests', { 'retry-after': '0' });
    const transport = new ScriptedTransport([throttled(), throttled(), throttled(), throttled()]);
    await expect(clientOver(transport, 2).get(configmaps, key)).rejects.toMatchObject({ status: 429 });
    expect(transport.sent).toHaveLength(3);
  });

  it('stops waiting for a Retry-After when the signal aborts, rejecting with its reason', async () => {
    const transport = new ScriptedTransport([status(429, 'TooManyRequests', { 'retry-after': '25' })]);
    const abort = new AbortController();
    const pending = clientOver(transport).get(configmaps, key, { signal: abort.signal });
    await waitFor(() => transport.sent.length === 1);
    const reason = new Error('reconcile timed out');
    abort.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(transport.sent).toHaveLength(1);
  });

  it('passes the signal to the transport on every attempt', async () => {
    const transport = new ScriptedTransport([reset()]);
    const abort = new AbortController();
    await clientOver(transport).get(configmaps, key, { signal: abort.signal });
    expect(transport.sent.map((s) => s.request.signal)).toEqual([abort.signal, abort.signal]);
  });

  it('sends one attempt only with retries: 0', async () => {
    const transport = new ScriptedTransport([status(503, 'ServiceUnavailable', { 'retry-after': '0' })]);
    await expect(clientOver(transport, 0).get(configmaps, key)).rejects.toMatchObject({ status: 503 });
    expect(transport.sent).toHaveLength(1);
  });

  it('rejects retry options out of range, naming the field', () => {
    const transport = new ScriptedTransport([]);
    expect(() => new KubeClient({ transport, retry: { retries: -1 } })).toThrow('invalid retry option retries=-1');
    expect(() => new KubeClient({ transport, retry: { minDelayMs: 10, maxDelayMs: 5 } })).toThrow('invalid retry option maxDelayMs=5');
  });
});
