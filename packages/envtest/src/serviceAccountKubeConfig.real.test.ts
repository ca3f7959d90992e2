import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError } from '@protean/core';
import { kubeRequest } from './kubeHttp.js';
import type { KubeApiServer } from './KubeApiServer.js';
import { serviceAccountKubeConfig, writeKubeConfigFile } from './serviceAccountKubeConfig.js';
import { ServiceAccountNotFoundError } from './ServiceAccountNotFoundError.js';
import { startKubeApiServer } from './startKubeApiServer.js';
import { TokenRequestError } from './TokenRequestError.js';

const NS = 'sa-test';

async function created(kc: KubeConfig, path: string, body: unknown): Promise<void> {
  const r = await kubeRequest(kc, 'POST', path, { body });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text.slice(0, 300)}`);
}

describe('serviceAccountKubeConfig', () => {
  let server: KubeApiServer;
  let dir: string;
  beforeAll(async () => {
    server = await startKubeApiServer();
    dir = await mkdtemp(join(tmpdir(), 'protean-sa-'));
    const admin = server.kubeConfig;
    await created(admin, '/api/v1/namespaces', { metadata: { name: NS } });
    await created(admin, `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'reader' } });
    await created(admin, `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
      metadata: { name: 'configmap-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    });
    await created(admin, `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      metadata: { name: 'reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: NS }],
    });
  });
  afterAll(async () => {
    await server?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('authenticates as system:serviceaccount:<ns>:<name> with a bearer token and no admin credentials', async () => {
    const kc = await serviceAccountKubeConfig(server.kubeConfig, { namespace: NS, name: 'reader' });
    const user = kc.getCurrentUser();
    expect(user).toMatchObject({ name: `system:serviceaccount:${NS}:reader` });
    expect(user?.token).toMatch(/^ey/); // a JWT
    expect(user?.certData).toBeUndefined();
    expect(user?.keyData).toBeUndefined();
    expect(kc.getCurrentCluster()).toMatchObject({ server: server.url, caData: server.kubeConfig.getCurrentCluster()?.caData });
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe(NS);

    const review = await kubeRequest(kc, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(review.status).toBe(201);
    const info = (review.json['status'] as { userInfo: { username: string; groups: string[] } }).userInfo;
    expect(info.username).toBe(`system:serviceaccount:${NS}:reader`);
    expect(info.groups).toEqual(expect.arrayContaining(['system:serviceaccounts', `system:serviceaccounts:${NS}`]));
  });

  it('gets 403 naming the ServiceAccount for what RBAC does not grant, and 200 for what a Role grants', async () => {
    const kc = await serviceAccountKubeConfig(server.kubeConfig, { namespace: NS, name: 'reader' });
    const denied = await kubeRequest(kc, 'GET', `/api/v1/namespaces/${NS}/secrets`);
    expect(denied.status).toBe(403);
    expect(String(denied.json['message'])).toContain(
      `User "system:serviceaccount:${NS}:reader" cannot list resource "secrets" in API group "" in the namespace "${NS}"`,
    );
    const write = await kubeRequest(kc, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'x' } } });
    expect(write.status).toBe(403);
    expect(String(write.json['message'])).toContain('cannot create resource "configmaps"');
    const allowed = await kubeRequest(kc, 'GET', `/api/v1/namespaces/${NS}/configmaps`);
    expect(allowed.status).toBe(200);
    const otherNamespace = await kubeRequest(kc, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(otherNamespace.status).toBe(403);
  });

  it('writes a 0600 kubeconfig file a child process can load', async () => {
    const kc = await serviceAccountKubeConfig(server.kubeConfig, { namespace: NS, name: 'reader', expirationSeconds: 600 });
    const path = await writeKubeConfigFile(kc, join(dir, 'reader.kubeconfig'));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const loaded = new KubeConfig();
    loaded.loadFromFile(path);
    expect(loaded.getCurrentUser()?.certData).toBeUndefined();
    expect((await kubeRequest(loaded, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).status).toBe(200);
  });

  it('rejects with ServiceAccountNotFoundError naming a ServiceAccount that does not exist', async () => {
    const attempt = serviceAccountKubeConfig(server.kubeConfig, { namespace: NS, name: 'ghost' });
    await expect(attempt).rejects.toBeInstanceOf(ServiceAccountNotFoundError);
    await expect(attempt).rejects.toThrow(`ServiceAccount ${NS}/ghost does not exist`);
    // The same fields as every API error: a KubeApiError of the TokenRequest.
    const err = await attempt.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({
      status: 404,
      reason: 'NotFound',
      method: 'POST',
      path: `/api/v1/namespaces/${NS}/serviceaccounts/ghost/token`,
    });
  });

  it('rejects with TokenRequestError naming the status and the server message for a too-short lifetime', async () => {
    const attempt = serviceAccountKubeConfig(server.kubeConfig, { namespace: NS, name: 'reader', expirationSeconds: 60 });
    await expect(attempt).rejects.toBeInstanceOf(TokenRequestError);
    await expect(attempt).rejects.toThrow(
      /TokenRequest for ServiceAccount sa-test\/reader failed with 422: .*expirationSeconds.*less than 10 minutes/,
    );
  });
});
