import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { KubeLeaseClient } from './KubeLeaseClient.js';
import type { LeaseWatchEvent } from './LeaseClient.js';

let server: InMemoryApiServer;

beforeAll(async () => {
  server = await InMemoryApiServer.start();
});

afterAll(async () => {
  await server.stop();
});

describe('KubeLeaseClient.watch over HTTP', () => {
  it('streams the named lease only: its current state, then its renewals and its release, until aborted', async () => {
    const client = new KubeLeaseClient(server.kubeConfig());
    const signal = new AbortController().signal;
    const spec = { holderIdentity: 'a', leaseDurationSeconds: 15 };
    const mine = await client.create({ metadata: { name: 'ctl', namespace: 'default' }, spec }, signal);
    await client.create({ metadata: { name: 'other', namespace: 'default' }, spec }, signal);
    const events: LeaseWatchEvent[] = [];
    const stop = new AbortController();
    const watching = client.watch('default', { name: 'ctl' }, (e) => events.push(e), stop.signal);
    await waitFor(() => events.length === 1, { message: 'the initial ADDED' });
    expect(events[0]).toMatchObject({ type: 'ADDED', lease: { metadata: { name: 'ctl' }, spec: { holderIdentity: 'a' } } });
    const renewed = await client.update({ ...mine, spec: { ...spec, renewTime: '2026-12-01T10:00:02.000000Z' } }, signal);
    await client.update({ ...renewed, spec: { leaseDurationSeconds: 1 } }, signal);
    await waitFor(() => events.length === 3, { message: 'the renewal and the release' });
    expect(events.map((e) => [e.type, e.lease.metadata.name, e.lease.spec?.holderIdentity ?? ''])).toEqual([
      ['ADDED', 'ctl', 'a'],
      ['MODIFIED', 'ctl', 'a'],
      ['MODIFIED', 'ctl', ''],
    ]);
    stop.abort();
    await expect(watching).resolves.toBeUndefined();
  });

  it('streams the leases a label selector matches', async () => {
    const client = new KubeLeaseClient(server.kubeConfig());
    const signal = new AbortController().signal;
    const labels = { 'sharding.protean.dev/group': 'g' };
    await client.create({ metadata: { name: 'g-1', namespace: 'default', labels }, spec: { holderIdentity: 'x' } }, signal);
    await client.create({ metadata: { name: 'h-1', namespace: 'default' }, spec: { holderIdentity: 'y' } }, signal);
    const names: string[] = [];
    const stop = new AbortController();
    const watching = client.watch(
      'default',
      { labelSelector: 'sharding.protean.dev/group=g' },
      (e) => names.push(e.lease.metadata.name),
      stop.signal,
    );
    await client.create({ metadata: { name: 'g-2', namespace: 'default', labels }, spec: { holderIdentity: 'z' } }, signal);
    await waitFor(() => names.length === 2, { message: 'both group leases' });
    expect(names).toEqual(['g-1', 'g-2']);
    stop.abort();
    await watching;
  });

  it('rejects when the watch cannot be opened', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const client = new KubeLeaseClient(kc);
    await expect(client.watch('default', { name: 'x' }, () => {}, new AbortController().signal)).rejects.toThrow(
      /watch lease default\/x failed: request failed/,
    );
  });
});
