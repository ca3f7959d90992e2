import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { track, waitFor } from '@protean/core/testing';
import { KubeConnectionPool, ProteanKubeConfig } from '@protean/transport';
import { ServerReadiness } from './ServerReadiness.js';

/*
 * ServerReadiness over real HTTP: a server that answers /readyz, closed and opened again on the same port, as an
 * API server restarting.
 */

let server: Server | undefined;
let port = 0;
let readyStatus = 200;
let probes = 0;
const aborts: AbortController[] = [];

async function listen(): Promise<void> {
  server = createServer((req, res) => {
    if (req.url === '/readyz') probes++;
    res
      .writeHead(req.url === '/readyz' ? readyStatus : 404, { 'content-type': 'text/plain' })
      .end(readyStatus === 200 ? 'ok' : 'not ready');
  });
  await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}

async function close(): Promise<void> {
  const s = server;
  server = undefined;
  if (s === undefined) return;
  s.closeAllConnections();
  await new Promise<void>((resolve) => s.close(() => resolve()));
}

function readiness(): ServerReadiness {
  const kubeConfig = new ProteanKubeConfig();
  kubeConfig.loadFromObject({
    clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}` } }],
    users: [{ name: 'u', user: {} }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });
  return new ServerReadiness(new KubeConnectionPool(kubeConfig), { probeIntervalMs: 20 });
}

function signal(): AbortSignal {
  const abort = new AbortController();
  aborts.push(abort);
  return abort.signal;
}

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await close();
  port = 0;
  readyStatus = 200;
  probes = 0;
});

describe('ServerReadiness', () => {
  it('ends every wait the moment the server answers /readyz again after being down, with one probe per interval for all', async () => {
    await listen();
    const ready = readiness();
    await close();
    const waits = [track(ready.whenBack(signal())), track(ready.whenBack(signal())), track(ready.whenBack(signal()))];
    await new Promise((r) => setTimeout(r, 200));
    expect(waits.map((w) => w.state)).toEqual(['pending', 'pending', 'pending']);

    // Up but not ready yet (a starting kube-apiserver answers 500): still waiting.
    readyStatus = 500;
    await listen();
    await waitFor(() => probes >= 2);
    expect(waits.map((w) => w.state)).toEqual(['pending', 'pending', 'pending']);
    const before = probes;
    await new Promise((r) => setTimeout(r, 200));
    // One probe per 20 ms interval for the three waits, not three.
    expect(probes - before).toBeLessThanOrEqual(12);

    readyStatus = 200;
    await waitFor(() => waits.every((w) => w.state === 'resolved'), { intervalMs: 5 });
    // Nobody waits: no more probes.
    const settled = probes;
    await new Promise((r) => setTimeout(r, 100));
    expect(probes).toBe(settled);
  });

  it('ends waits on a ready answer at the first probe (back before it looked) at most once per quiet period, and stops probing', async () => {
    await listen();
    const ready = readiness();
    const first = track(ready.whenBack(signal()));
    await waitFor(() => first.state === 'resolved' && probes === 1);
    // Again at once: a server that fails requests while answering ready; this one is left to its backoff.
    const second = track(ready.whenBack(signal()));
    await waitFor(() => probes === 2);
    await new Promise((r) => setTimeout(r, 150));
    expect(second.state).toBe('pending');
    expect(probes).toBe(2);
  });

  it('ends a wait when its signal aborts', async () => {
    await listen();
    const ready = readiness();
    await close();
    const abort = new AbortController();
    const wait = track(ready.whenBack(abort.signal));
    abort.abort();
    await waitFor(() => wait.state === 'resolved');
  });
});
