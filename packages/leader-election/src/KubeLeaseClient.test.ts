import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiStatusOf, KubeApiError } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { KubeLeaseClient } from './KubeLeaseClient.js';
import { LeaseRequestError } from './LeaseRequestError.js';

let server: InMemoryApiServer;
let client: KubeLeaseClient;
const signal = new AbortController().signal;
const spec = {
  holderIdentity: 'a',
  leaseDurationSeconds: 15,
  acquireTime: '2026-12-01T10:00:00.000000Z',
  renewTime: '2026-12-01T10:00:00.000000Z',
  leaseTransitions: 0,
};

beforeAll(async () => {
  server = await InMemoryApiServer.start();
  client = new KubeLeaseClient(server.kubeConfig());
});

afterAll(async () => {
  await server.stop();
});

async function rejection(p: Promise<unknown>): Promise<LeaseRequestError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof LeaseRequestError)) throw new Error(`expected a LeaseRequestError, got ${String(err)}`);
  return err;
}

describe('KubeLeaseClient over HTTP (in-memory API server)', () => {
  it('reads a missing lease as undefined, creates it once, and answers a second create with a 409 conflict', async () => {
    await expect(client.get('default', 'one', signal)).resolves.toBeUndefined();
    const created = await client.create({ metadata: { name: 'one', namespace: 'default' }, spec }, signal);
    expect(created).toMatchObject({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'one', namespace: 'default' },
      spec,
    });
    expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
    await expect(client.get('default', 'one', signal)).resolves.toEqual(created);
    const again = await rejection(client.create({ metadata: { name: 'one', namespace: 'default' }, spec }, signal));
    expect(again).toMatchObject({ verb: 'create', lease: 'default/one', status: 409, reason: 'AlreadyExists', conflict: true });
  });

  it('updates with the current resourceVersion and fails a stale one with a 409 conflict', async () => {
    const created = await client.create({ metadata: { name: 'two', namespace: 'default' }, spec }, signal);
    const renewed = await client.update({ ...created, spec: { ...spec, renewTime: '2026-12-01T10:00:02.000000Z' } }, signal);
    expect(Number(renewed.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    const stale = await rejection(client.update({ ...created, spec: { ...spec, holderIdentity: 'b' } }, signal));
    expect(stale).toMatchObject({ verb: 'update', status: 409, reason: 'Conflict', conflict: true });
    expect(stale.message).toContain('update lease default/two failed: 409 Conflict: Operation cannot be fulfilled');
  });

  it("carries the server's Status, message and request as every KubeApiError does", async () => {
    await client.create({ metadata: { name: 'four', namespace: 'default' }, spec }, signal);
    const again = await rejection(client.create({ metadata: { name: 'four', namespace: 'default' }, spec }, signal));
    expect(again).toBeInstanceOf(KubeApiError);
    expect(again).toMatchObject({
      status: 409,
      reason: 'AlreadyExists',
      method: 'POST',
      path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
      body: { kind: 'Status', code: 409, reason: 'AlreadyExists' },
    });
    expect(again.serverMessage).toContain('already exists');
    expect(apiStatusOf(again)).toMatchObject({ code: 409, reason: 'AlreadyExists' });
  });

  it("surfaces the server's 400 for a time that is not MicroTime, and an aborted request as reason Aborted", async () => {
    const bad = await rejection(
      client.create({ metadata: { name: 'three', namespace: 'default' }, spec: { renewTime: '2026-12-01T10:00:00Z' } }, signal),
    );
    expect(bad).toMatchObject({ status: 400, reason: 'BadRequest', conflict: false });
    const abort = new AbortController();
    abort.abort(new Error('deadline'));
    const aborted = await rejection(client.get('default', 'one', abort.signal));
    expect(aborted).toMatchObject({ verb: 'get', reason: 'Aborted', status: undefined });
  });

  it('reports an unreachable server as a NetworkError', async () => {
    const kc = server.kubeConfig();
    const down = await InMemoryApiServer.start();
    const url = down.url;
    await down.stop();
    kc.clusters[0] = { ...kc.clusters[0]!, server: url };
    const err = await rejection(new KubeLeaseClient(kc).get('default', 'one', signal));
    expect(err).toMatchObject({ reason: 'NetworkError', status: undefined });
  });
});
