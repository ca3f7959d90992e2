import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import { apiStatusOf, isNotFound, KubeApiError, summarizeError } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { KubeLeaseClient, LeaseRequestError } from '@protean/leader-election';
import { KubeMemberLeaseClient } from '@protean/sharding';
import { KubernetesRequestError } from '@protean/watch-manager';
import { CONFIGMAPS, runInformer, waitForValue, type RunningInformer } from './informerHarness.js';

// One error type for an error status from the API server, whichever package sent the request: core's KubeApiError,
// with the same fields, read the same way by core's predicates. Each package's requests go over HTTP here.

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const spec = { holderIdentity: 'a', leaseDurationSeconds: 15 };

let server: InMemoryApiServer;
const running: RunningInformer[] = [];
const signal = new AbortController().signal;

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});

afterEach(async () => {
  for (const r of running.splice(0)) r.abort.abort();
  await server.stop();
});

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

/** The failure an informer of ConfigMaps reported first, its first LIST answered with `status` by the server. */
async function listFailure(status: number, retryAfterSeconds?: number): Promise<Error> {
  server.faults.failNext(1, status, {
    match: (r) => r.path === '/api/v1/configmaps' && r.query.get('watch') !== 'true',
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
  const r = runInformer(server, CONFIGMAPS);
  running.push(r);
  return waitForValue(() => r.errors[0], `the informer's failed LIST`);
}

describe('every package throws core’s KubeApiError for an error status', () => {
  it('a client 404, a list 410 and a lease 409 are KubeApiErrors that core’s predicates read alike', async () => {
    const client = new KubeClient({ kubeConfig: server.kubeConfig() });
    const missing = await rejection(client.get(CONFIGMAPS, { namespace: 'default', name: 'missing' }));
    const expired = await listFailure(410);
    const leases = new KubeLeaseClient(server.kubeConfig());
    await leases.create({ metadata: { name: 'l', namespace: 'default' }, spec }, signal);
    const taken = await rejection(leases.create({ metadata: { name: 'l', namespace: 'default' }, spec }, signal));

    expect(missing).toBeInstanceOf(KubeApiError);
    expect(expired).toBeInstanceOf(KubeApiError);
    expect(expired).toBeInstanceOf(KubernetesRequestError);
    expect(taken).toBeInstanceOf(KubeApiError);
    expect(taken).toBeInstanceOf(LeaseRequestError);

    expect(missing).toMatchObject({ status: 404, reason: 'NotFound', method: 'GET', body: { kind: 'Status', code: 404 } });
    expect(expired).toMatchObject({ status: 410, reason: 'Expired', method: 'LIST', expired: true, body: { kind: 'Status', code: 410 } });
    expect(taken).toMatchObject({
      status: 409,
      reason: 'AlreadyExists',
      method: 'POST',
      conflict: true,
      body: { kind: 'Status', code: 409 },
    });

    expect(isNotFound(missing)).toBe(true);
    expect(isNotFound(expired)).toBe(false);
    expect(isNotFound(taken)).toBe(false);
    for (const err of [missing, expired, taken] as KubeApiError[]) {
      expect(apiStatusOf(err)).toEqual({ code: err.status, reason: err.reason, message: err.serverMessage, ...nameOf(err) });
      expect(summarizeError(err)).toBe(`${err.status} ${err.reason}: ${err.serverMessage}`);
    }
  });

  it('the same throttling answer reads the same from the client, a list, a lease call and a member lease list', async () => {
    const throttle = (match: (r: { path: string; query: URLSearchParams }) => boolean): void =>
      server.faults.failNext(1, 429, { retryAfterSeconds: 3, match });
    throttle((r) => r.path === '/api/v1/namespaces/default/configmaps/c');
    const fromClient = await rejection(
      new KubeClient({ kubeConfig: server.kubeConfig(), retry: { retries: 0 } }).get(CONFIGMAPS, { namespace: 'default', name: 'c' }),
    );
    const fromList = await listFailure(429, 3);
    throttle((r) => r.path === `${LEASES}/l`);
    const fromLease = await rejection(new KubeLeaseClient(server.kubeConfig()).get('default', 'l', signal));
    throttle((r) => r.path === LEASES);
    const fromMembers = await rejection(new KubeMemberLeaseClient(server.kubeConfig()).list('default', 'app=x', signal));

    const errors = [fromClient, fromList, fromLease, fromMembers];
    const [first] = errors as [KubeApiError];
    for (const err of errors) {
      expect(err).toBeInstanceOf(KubeApiError);
      const { status, reason, serverMessage, retryAfterMs, body } = err as KubeApiError;
      expect({ status, reason, serverMessage, retryAfterMs, body }).toEqual({
        status: 429,
        reason: 'TooManyRequests',
        serverMessage: first.serverMessage,
        retryAfterMs: 3000,
        body: first.body,
      });
      expect(apiStatusOf(err)).toEqual(apiStatusOf(first));
    }
    expect(errors.map((e) => (e as KubeApiError).method)).toEqual(['GET', 'LIST', 'GET', 'LIST']);
  });
});

/** The object a Status names, as `apiStatusOf` gives it. */
function nameOf(err: KubeApiError): { name?: string } {
  const name = err.body?.details?.name;
  return name === undefined || name === '' ? {} : { name };
}
