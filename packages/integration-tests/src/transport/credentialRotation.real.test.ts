import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { KubeConnectionPool, sharedConnectionPool } from '@protean/transport';
import { KubernetesInformerSource, runInformer } from '@protean/watch-manager';

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
/** Watches end within a few seconds, so the informer reconnects (with the current credentials) soon after a rotation. */
const SHORT_WATCHES = { minWatchTimeoutSeconds: 1, maxWatchTimeoutSeconds: 2, backoff: { initialMs: 100, maxMs: 1000, jitter: 0 } };

let api: KubeApiServer;
let admin: KubeConnectionPool;
let dir: string;
const abort = new AbortController();

/** Who the API server says `pool`'s credentials are (a SelfSubjectReview: every authenticated user may ask). */
async function whoAmI(pool: KubeConnectionPool): Promise<string> {
  const res = await pool.send({
    method: 'POST',
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
  });
  if (res.status !== 201) throw new Error(`SelfSubjectReview: ${res.status} ${res.body.slice(0, 200)}`);
  return (JSON.parse(res.body) as { status: { userInfo: { username: string } } }).status.userInfo.username;
}

async function adminSend(method: 'POST' | 'PUT', path: string, body: unknown): Promise<string> {
  const res = await admin.send({
    method,
    path,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`);
  return res.body;
}

/** A KubeConfig for the test server with `user` (its `server` and CA from the admin KubeConfig). */
function kubeConfigWith(user: Record<string, string>): KubeConfig {
  const cluster = api.kubeConfig.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'test', server: cluster.server, caData: cluster.caData, skipTLSVerify: false }],
    users: [{ name: 'rotating', ...user }],
    contexts: [{ name: 'test', cluster: 'test', user: 'rotating' }],
    currentContext: 'test',
  });
  return kc;
}

beforeAll(async () => {
  api = await startKubeApiServer();
  admin = new KubeConnectionPool(api.kubeConfig);
  dir = mkdtempSync(join(tmpdir(), 'protean-rotation-'));
});

afterAll(async () => {
  abort.abort();
  admin?.close();
  await api?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('credential rotation over the shared connection (real kube-apiserver)', () => {
  it('presents a replaced client certificate file on the next connection, and the informer moves to it', async () => {
    const userOf = (kc: KubeConfig): { certData: string; keyData: string } => {
      const u = kc.getCurrentUser()!;
      return { certData: u.certData!, keyData: u.keyData! };
    };
    // Both users are cluster admins (group system:masters), so the informer may list and watch as either.
    const alice = userOf(api.kubeConfigFor('alice', ['system:masters']));
    const bob = userOf(api.kubeConfigFor('bob', ['system:masters']));
    const certFile = join(dir, 'client.crt');
    const keyFile = join(dir, 'client.key');
    const install = (u: { certData: string; keyData: string }): void => {
      writeFileSync(keyFile, Buffer.from(u.keyData, 'base64'));
      writeFileSync(certFile, Buffer.from(u.certData, 'base64'));
    };
    install(alice);
    const kc = kubeConfigWith({ certFile, keyFile });
    const pool = sharedConnectionPool(kc);
    expect(await whoAmI(pool)).toBe('alice');

    const informer = runInformer(
      new KubernetesInformerSource({ kubeConfig: kc, ...SHORT_WATCHES }).createListWatch(CONFIGMAPS),
      {},
      abort.signal,
    );
    await waitFor(() => informer.hasSynced(), { timeoutMs: 30_000, message: 'the informer to sync as alice' });
    const aliceConnection = pool.stats().servers;
    expect(aliceConnection).toHaveLength(1);

    install(bob);
    // The next request applies the new certificate: a new connection (a second TLS identity), and the server sees bob.
    expect(await whoAmI(pool)).toBe('bob');
    expect(pool.stats().servers.filter((s) => !s.retired)).toHaveLength(1);
    // The informer's watch ends within its short timeout and comes back on bob's connection; alice's drains and closes.
    await waitFor(() => pool.stats().servers.length === 1 && pool.stats().servers[0]!.activeStreams >= 1, {
      timeoutMs: 30_000,
      intervalMs: 50,
      message: "alice's connection to drain and the informer's watch to run on bob's",
    });
    await adminSend('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-cert-rotation' } });
    await waitFor(() => informer.get({ namespace: 'default', name: 'after-cert-rotation' }) !== undefined, {
      timeoutMs: 30_000,
      message: 'the informer to see a change made after the rotation',
    });
    expect(informer.health().failing).toBeUndefined();
  });

  it('sends a rotated token in the headers of the next stream, on the same connection', async () => {
    // Two service accounts with tokens from the TokenRequest API, both bound to cluster-admin.
    for (const sa of ['sa-one', 'sa-two']) {
      await adminSend('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: sa } });
      await adminSend('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        metadata: { name: `${sa}-admin` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: 'default' }],
      });
    }
    const tokenOf = async (sa: string): Promise<string> => {
      const body = await adminSend('POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      });
      return (JSON.parse(body) as { status: { token: string } }).status.token;
    };
    const kc = kubeConfigWith({ token: await tokenOf('sa-one') });
    const pool = sharedConnectionPool(kc);
    expect(await whoAmI(pool)).toBe('system:serviceaccount:default:sa-one');
    const informer = runInformer(
      new KubernetesInformerSource({ kubeConfig: kc, ...SHORT_WATCHES }).createListWatch(CONFIGMAPS),
      {},
      abort.signal,
    );
    await waitFor(() => informer.hasSynced(), { timeoutMs: 30_000, message: 'the informer to sync as sa-one' });

    const two = await tokenOf('sa-two');
    kc.users = kc.users.map((u) => ({ ...u, token: two }));
    expect(await whoAmI(pool)).toBe('system:serviceaccount:default:sa-two');
    // A token is a header, not a TLS identity: the same connection carries both.
    expect(pool.stats()).toMatchObject({ connectionsOpened: 1, servers: [expect.objectContaining({ retired: false, protocol: 'h2' })] });
    await adminSend('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-token-rotation' } });
    await waitFor(() => informer.get({ namespace: 'default', name: 'after-token-rotation' }) !== undefined, {
      timeoutMs: 30_000,
      message: 'the informer to see a change made after the token rotation',
    });
  });
});
