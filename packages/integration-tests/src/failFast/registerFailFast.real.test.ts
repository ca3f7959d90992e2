import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { ParentSyncError, type GroupVersionResource } from '@protean/core';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { WatchError } from '@protean/watch-manager';
import { startRealController, type RealController } from '../e2e/startRealController.js';
import { unrelatedCaPem } from './wrongCaServer.js';

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
/** The watch manager's default sync deadline: fail fast means rejected well before it. */
const SYNC_TIMEOUT_MS = 30_000;

let api: KubeApiServer;
let rc: RealController | undefined;

beforeAll(async () => {
  api = await startKubeApiServer();
});

afterEach(async () => {
  await rc?.stop();
  rc = undefined;
});

afterAll(async () => {
  await api?.stop();
});

/** The admin KubeConfig of `api` with its cluster's CA swapped for one that did not sign the server's certificate. */
function withWrongCa(kc: KubeConfig): KubeConfig {
  const wrong = new KubeConfig();
  const caData = Buffer.from(unrelatedCaPem()).toString('base64');
  wrong.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ name: c.name, server: c.server, caData })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return wrong;
}

async function registerError(kubeConfig: KubeConfig): Promise<{ err: unknown; elapsedMs: number }> {
  // The production informer backoff (800 ms doubling), as an application runs it.
  rc = startRealController({ kubeConfig, informer: { backoff: { initialMs: 800, maxMs: 30_000 } } });
  const startedMs = performance.now();
  const err = await rc.controller
    .register(CONFIGMAPS, async () => {})
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  return { err, elapsedMs: performance.now() - startedMs };
}

describe('register() against kube-apiserver with credentials that can never work', () => {
  it('rejects with TlsVerificationFailed, the server URL and the certificate error when the KubeConfig carries another CA', async () => {
    const { err, elapsedMs } = await registerError(withWrongCa(api.kubeConfig));
    expect(err).toBeInstanceOf(ParentSyncError);
    const cause = (err as ParentSyncError).cause as WatchError;
    expect(cause).toBeInstanceOf(WatchError);
    expect(cause.reason).toBe('TlsVerificationFailed');
    expect(cause.server).toBe(api.url);
    expect((err as Error).message).toContain(`TLS verification of the API server at ${api.url} failed`);
    expect((err as Error).message).toMatch(/unable to verify the first certificate|self-signed certificate/);
    expect(elapsedMs).toBeLessThan(SYNC_TIMEOUT_MS);
  }, 40_000);

  it('rejects with Forbidden, the server URL and the 403 for a user without RBAC', async () => {
    const { err, elapsedMs } = await registerError(api.kubeConfigFor('no-rbac-user'));
    expect(err).toBeInstanceOf(ParentSyncError);
    const cause = (err as ParentSyncError).cause as WatchError;
    expect(cause.reason).toBe('Forbidden');
    expect(cause.status).toBe(403);
    expect(cause.server).toBe(api.url);
    expect((err as Error).message).toContain(`the API server at ${api.url} answered 403`);
    expect((err as Error).message).toContain('no-rbac-user');
    expect(elapsedMs).toBeLessThan(SYNC_TIMEOUT_MS);
  }, 40_000);
});
