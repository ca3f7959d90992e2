import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { ParentSyncError, type GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { instrumentContainer, type ProteanMetrics } from '@protean/metrics';
import { WatchError } from '@protean/watch-manager';
import { createServer } from 'node:net';
import { startRealController, type RealController } from '../e2e/startRealController.js';
import { startWrongCaServer, type WrongCaServer } from './wrongCaServer.js';

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
/** The watch manager's default sync deadline: fail fast means rejected well before it. */
const SYNC_TIMEOUT_MS = 30_000;

function kubeConfigFor(server: string, caPem?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, ...(caPem === undefined ? {} : { caData: Buffer.from(caPem).toString('base64') }) }],
    users: [{ name: 'u', token: 'not-checked' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

let rc: RealController | undefined;
let https: WrongCaServer | undefined;

afterEach(async () => {
  await rc?.stop();
  await https?.close();
  rc = https = undefined;
});

/** Starts a controller with the production informer backoff (800 ms doubling) and metrics, as an application would. */
function start(kubeConfig: KubeConfig): { rc: RealController; metrics: () => ProteanMetrics } {
  let metrics: ProteanMetrics | undefined;
  rc = startRealController({
    kubeConfig,
    informer: { backoff: { initialMs: 800, maxMs: 30_000 } },
    configure: (c) => {
      metrics = instrumentContainer(c, { processMetrics: false });
    },
  });
  return { rc, metrics: () => metrics! };
}

async function readyzReason(m: ProteanMetrics): Promise<string> {
  const check = m.readiness().find((c) => c.name === 'parent-informers-synced')!;
  const verdict = await check.ready();
  if (typeof verdict === 'boolean') return verdict ? '' : 'not ready';
  return verdict.ready ? '' : (verdict.reason ?? '');
}

describe('register() against an API server it can never reach', () => {
  it('rejects for a closed port with ConnectionRefused, the server URL and the socket error, and /readyz names the cause meanwhile', async () => {
    const server = `https://127.0.0.1:${await closedPort()}`;
    const { rc, metrics } = start(kubeConfigFor(server));
    const startedMs = performance.now();
    const registering = rc.controller.register(CONFIGMAPS, async () => {});
    registering.catch(() => {});
    await waitFor(async () => (await readyzReason(metrics())).includes('ECONNREFUSED'), {
      timeoutMs: 10_000,
      message: '/readyz naming ECONNREFUSED',
    });
    expect(await readyzReason(metrics())).toMatch(/^not synced: \/v1\/configmaps \(failing: .*ECONNREFUSED/);
    expect(metrics().informers()[0]?.problem).toContain('ECONNREFUSED');

    const err = await registering.then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsedMs = performance.now() - startedMs;
    expect(err).toBeInstanceOf(ParentSyncError);
    const cause = (err as ParentSyncError).cause as WatchError;
    expect(cause).toBeInstanceOf(WatchError);
    expect(cause.reason).toBe('ConnectionRefused');
    expect(cause.server).toBe(server);
    expect((err as Error).message).toContain('cannot register parent /v1/configmaps');
    expect((err as Error).message).toContain(`the API server at ${server} refused the connection`);
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(elapsedMs).toBeLessThan(SYNC_TIMEOUT_MS);
  }, 40_000);

  it('rejects for a server whose certificate another CA signed with TlsVerificationFailed and the certificate error', async () => {
    https = await startWrongCaServer();
    const { rc } = start(kubeConfigFor(https.url, https.otherCaPem));
    const startedMs = performance.now();
    const err = await rc.controller
      .register(CONFIGMAPS, async () => {})
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const elapsedMs = performance.now() - startedMs;
    expect(err).toBeInstanceOf(ParentSyncError);
    const cause = (err as ParentSyncError).cause as WatchError;
    expect(cause.reason).toBe('TlsVerificationFailed');
    expect(cause.server).toBe(https.url);
    expect((err as Error).message).toContain(`TLS verification of the API server at ${https.url} failed`);
    expect((err as Error).message).toContain('unable to verify the first certificate');
    expect(elapsedMs).toBeLessThan(SYNC_TIMEOUT_MS);
  }, 40_000);
});
