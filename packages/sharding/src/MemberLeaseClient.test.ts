import { afterEach, describe, expect, it } from '@jest/globals';
import { apiStatusOf, KubeApiError } from '@protean/core';
import { LeaseRequestError } from '@protean/leader-election';
import { closeLocalApiServers, localApiServer } from './localApiServer.testkit.js';
import { FakeMemberLeaseClient, KubeMemberLeaseClient } from './MemberLeaseClient.js';

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

const signal = new AbortController().signal;

afterEach(closeLocalApiServers);

/** An API server that answers every request with `answer`, recording the method and URL asked. */
async function apiServer(answer: Answer): Promise<{ client: KubeMemberLeaseClient; asked: string[] }> {
  const asked: string[] = [];
  const kubeConfig = await localApiServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body));
  });
  return { client: new KubeMemberLeaseClient(kubeConfig), asked };
}

const status = (code: number, reason: string, message: string): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('KubeMemberLeaseClient: an error status is a LeaseRequestError, core’s KubeApiError', () => {
  it('rejects a refused LIST with the status, the Status and the request', async () => {
    const { client } = await apiServer({ status: 403, body: status(403, 'Forbidden', 'leases is forbidden') });
    const err = await rejection(client.list('ns', 'app=x', signal));
    expect(err).toBeInstanceOf(LeaseRequestError);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({
      verb: 'list',
      lease: 'ns/*',
      status: 403,
      reason: 'Forbidden',
      serverMessage: 'leases is forbidden',
      method: 'LIST',
      path: '/apis/coordination.k8s.io/v1/namespaces/ns/leases?labelSelector=app%3Dx',
    });
    expect((err as Error).message).toBe('list lease ns/* failed: 403 Forbidden: leases is forbidden');
    expect(apiStatusOf(err)).toEqual({ code: 403, reason: 'Forbidden', message: 'leases is forbidden' });
  });

  it('rejects a LIST answer that holds no lease list, naming its status', async () => {
    const { client } = await apiServer({ status: 200, body: '{"kind":"Lease"}' });
    const err = await rejection(client.list('ns', 'app=x', signal));
    expect(err).toBeInstanceOf(LeaseRequestError);
    expect(err).toMatchObject({ verb: 'list', status: 200 });
  });

  it('resolves a DELETE true when done, false when gone or changed, and rejects any other status with its wait', async () => {
    expect(await (await apiServer({ status: 200, body: '{}' })).client.delete('ns', 'm', '7', signal)).toBe(true);
    expect(await (await apiServer({ status: 404, body: status(404, 'NotFound', 'gone') })).client.delete('ns', 'm', '7', signal)).toBe(
      false,
    );
    expect(await (await apiServer({ status: 409, body: status(409, 'Conflict', 'changed') })).client.delete('ns', 'm', '7', signal)).toBe(
      false,
    );
    const { client, asked } = await apiServer({
      status: 503,
      body: status(503, 'ServiceUnavailable', 'try later'),
      headers: { 'retry-after': '2' },
    });
    const err = await rejection(client.delete('ns', 'm', '7', signal));
    expect(asked).toEqual(['DELETE /apis/coordination.k8s.io/v1/namespaces/ns/leases/m']);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({
      verb: 'delete',
      lease: 'ns/m',
      status: 503,
      reason: 'ServiceUnavailable',
      retryAfterMs: 2000,
      method: 'DELETE',
    });
  });
});

describe('FakeMemberLeaseClient fails as leader election’s FakeLeaseClient does', () => {
  it('rejects list and delete with a 503 LeaseRequestError while failing, and with reason Aborted once aborted', async () => {
    const fake = new FakeMemberLeaseClient();
    fake.failing = true;
    for (const call of [fake.list('ns', 'app=x', signal), fake.delete('ns', 'm', '1', signal)]) {
      const err = await rejection(call);
      expect(err).toBeInstanceOf(KubeApiError);
      expect(err).toMatchObject({ status: 503, reason: 'ServiceUnavailable' });
    }
    fake.failing = false;
    const aborted = AbortSignal.abort();
    expect(await rejection(fake.list('ns', 'app=x', aborted))).toMatchObject({ verb: 'list', reason: 'Aborted', status: undefined });
    expect(await rejection(fake.delete('ns', 'm', '1', aborted))).toMatchObject({ verb: 'delete', reason: 'Aborted', status: undefined });
  });
});
