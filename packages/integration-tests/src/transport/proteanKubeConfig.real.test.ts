// ProteanKubeConfig against a real kube-apiserver: loaded from KubeConfig files (as client-node writes them),
// it authenticates with the admin's client certificate, a ServiceAccount's bearer token, and an exec
// plugin that prints that token; requests go through the shared connection pool, and an informer syncs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { serviceAccountKubeConfig, startKubeApiServer, writeKubeConfigFile, type KubeApiServer } from '@protean/envtest';
import { ProteanKubeConfig, sharedConnectionPool, type KubeConnectionPool } from '@protean/transport';
import { KubernetesInformerSource, runInformer } from '@protean/watch-manager';

const NS = 'kc-test';
const SA = 'reader';
const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

let api: KubeApiServer;
let dir: string;
let saToken: string;
const pools: KubeConnectionPool[] = [];
const abort = new AbortController();

function load(file: string): ProteanKubeConfig {
  const kc = new ProteanKubeConfig();
  kc.loadFromFile(file);
  pools.push(sharedConnectionPool(kc));
  return kc;
}

async function send(
  kc: ProteanKubeConfig,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await sharedConnectionPool(kc).send({
    method,
    path,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: JSON.parse(res.body) as Record<string, unknown> };
}

/** Who the API server says the credentials are (a SelfSubjectReview). */
async function whoAmI(kc: ProteanKubeConfig): Promise<string> {
  const r = await send(kc, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  expect(r.status).toBe(201);
  return (r.json['status'] as { userInfo: { username: string } }).userInfo.username;
}

async function configMapNames(kc: ProteanKubeConfig): Promise<string[]> {
  const r = await send(kc, 'GET', `/api/v1/namespaces/${NS}/configmaps`);
  expect(r.status).toBe(200);
  return (r.json['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name).filter((n) => n !== 'kube-root-ca.crt');
}

beforeAll(async () => {
  api = await startKubeApiServer();
  dir = mkdtempSync(join(tmpdir(), 'protean-kc-real-'));
  const admin = load(await writeKubeConfigFile(api.kubeConfig, join(dir, 'admin.yaml')));
  const create = async (path: string, body: unknown): Promise<void> => {
    const r = await send(admin, 'POST', path, body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
  };
  await create('/api/v1/namespaces', { metadata: { name: NS } });
  await create(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'one' }, data: { a: '1' } });
  await create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: SA } });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
    metadata: { name: SA },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
  });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
    metadata: { name: SA },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: SA },
    subjects: [{ kind: 'ServiceAccount', name: SA, namespace: NS }],
  });
  const saKubeConfig = await serviceAccountKubeConfig(api.kubeConfig, { namespace: NS, name: SA });
  saToken = saKubeConfig.getCurrentUser()!.token!;
  await writeKubeConfigFile(saKubeConfig, join(dir, 'sa.yaml'));
});

afterAll(async () => {
  abort.abort();
  for (const p of pools) p.close();
  await api?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('ProteanKubeConfig against a real kube-apiserver', () => {
  it('authenticates with the client certificate of the KubeConfig file envtest writes', async () => {
    const kc = load(join(dir, 'admin.yaml'));
    expect(await whoAmI(kc)).toBe('admin');
    expect(await configMapNames(kc)).toEqual(['one']);
  });

  it('authenticates with a ServiceAccount bearer token, and RBAC applies to it', async () => {
    const kc = load(join(dir, 'sa.yaml'));
    expect(await whoAmI(kc)).toBe(`system:serviceaccount:${NS}:${SA}`);
    expect(await configMapNames(kc)).toEqual(['one']);
    expect((await send(kc, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(403);
  });

  it('authenticates with the token an exec credential plugin prints, and an informer syncs with it', async () => {
    const plugin = join(dir, 'token-plugin.sh');
    const status = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: saToken } });
    writeFileSync(plugin, `#!/bin/sh\ncat <<'EOF'\n${status}\nEOF\n`);
    chmodSync(plugin, 0o755);
    const cluster = api.kubeConfig.getCurrentCluster()!;
    writeFileSync(
      join(dir, 'exec.yaml'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'envtest', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
        users: [
          {
            name: 'plugin',
            user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './token-plugin.sh', interactiveMode: 'Never' } },
          },
        ],
        contexts: [{ name: 'envtest', context: { cluster: 'envtest', user: 'plugin', namespace: NS } }],
        'current-context': 'envtest',
      }),
    );
    const kc = load(join(dir, 'exec.yaml'));
    expect(await whoAmI(kc)).toBe(`system:serviceaccount:${NS}:${SA}`);
    const informer = runInformer(
      new KubernetesInformerSource({ kubeConfig: kc, namespace: NS }).createListWatch(CONFIGMAPS),
      {},
      abort.signal,
    );
    await waitFor(() => informer.hasSynced(), { timeoutMs: 30_000, message: 'the informer to sync with the exec plugin token' });
    expect(informer.get({ namespace: NS, name: 'one' })).toBeDefined();
  });
});
