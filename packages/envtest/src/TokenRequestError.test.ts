import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { apiStatusOf, KubeApiError, summarizeError } from '@protean/core';
import { serviceAccountKubeConfig } from './serviceAccountKubeConfig.js';
import { TokenRequestError } from './TokenRequestError.js';

const TOKEN_PATH = '/api/v1/namespaces/sa-test/serviceaccounts/reader/token';
const INVALID = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code: 422,
  reason: 'Invalid',
  message:
    'TokenRequest.authentication.k8s.io "reader" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
};

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** An API server over plain HTTP (client-node wants skipTLSVerify for that) that answers every request 422 with the Status above, and its admin KubeConfig. */
async function refusingServer(): Promise<KubeConfig> {
  server = createServer((_req, res) => {
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(JSON.stringify(INVALID));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'admin' }],
    contexts: [{ name: 'c', cluster: 'c', user: 'admin' }],
    currentContext: 'c',
  });
  return kc;
}

describe('TokenRequestError', () => {
  it('is a KubeApiError of the TokenRequest that keeps its own name, message and fields', () => {
    const err = new TokenRequestError('sa-test', 'reader', 422, 'too short', { path: TOKEN_PATH });
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err.name).toBe('TokenRequestError');
    expect(err.message).toBe('TokenRequest for ServiceAccount sa-test/reader failed with 422: too short');
    expect(err).toMatchObject({ namespace: 'sa-test', serviceAccount: 'reader', status: 422, method: 'POST', path: TOKEN_PATH });
    expect(err.serverMessage).toBe('too short');
    expect(apiStatusOf(err)?.code).toBe(422);
  });

  it('is what serviceAccountKubeConfig rejects with for a refused TokenRequest, with the server’s Status', async () => {
    const admin = await refusingServer();
    const err = await serviceAccountKubeConfig(admin, { namespace: 'sa-test', name: 'reader', expirationSeconds: 60 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TokenRequestError);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ status: 422, reason: 'Invalid', method: 'POST', path: TOKEN_PATH, body: INVALID });
    expect((err as Error).message).toMatch(/^TokenRequest for ServiceAccount sa-test\/reader failed with 422: .*less than 10 minutes/);
    expect(summarizeError(err)).toMatch(/^422 Invalid: .*less than 10 minutes/);
  });
});
