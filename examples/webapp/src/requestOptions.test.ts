import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '@protean/testing';
import { requestOptions } from './requestOptions.js';

let server: Server;
let seen: IncomingHttpHeaders[];
let hold: boolean;
let api: CoreV1Api;

beforeEach(async () => {
  seen = [];
  hold = false;
  server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    if (hold) return; // never answers: only an abort ends the call
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  api = kc.makeApiClient(CoreV1Api);
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('requestOptions', () => {
  it("sends a patch as a JSON merge patch (client-node's default is a JSON patch) and keeps the client's auth", async () => {
    await api.patchNamespacedConfigMap(
      { namespace: 'n', name: 'x', body: { data: { a: 'b' } } },
      requestOptions(new AbortController().signal, 'merge'),
    );
    await api.patchNamespacedConfigMap({ namespace: 'n', name: 'x', body: [] });

    expect(seen.map((h) => h['content-type'])).toEqual(['application/merge-patch+json', 'application/json-patch+json']);
    expect(seen[0]?.['authorization']).toBe('Bearer secret-token');
  });

  it('cancels the request when the signal aborts', async () => {
    hold = true;
    const abort = new AbortController();
    const call = api.readNamespacedConfigMap({ namespace: 'n', name: 'x' }, requestOptions(abort.signal));
    await waitFor(() => seen.length > 0);

    abort.abort();

    await expect(call).rejects.toThrow(/abort/i);
  });
});
