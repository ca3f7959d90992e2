import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigTransport } from './KubeConfigTransport.js';
import { KubeTransportError } from './KubeTransportError.js';

const servers: Server[] = [];
const transports: KubeConfigTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) t.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function transportFor(url: string, token = 't0k3n'): KubeConfigTransport {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const t = new KubeConfigTransport(kc);
  transports.push(t);
  return t;
}

describe('KubeConfigTransport', () => {
  it("sends the request with the KubeConfig's credentials and resolves with any status", async () => {
    let seen: Record<string, string | undefined> = {};
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body };
        res.writeHead(422, { 'content-type': 'application/json', 'retry-after': '3' }).end('{"kind":"Status"}');
      });
    });
    const res = await transportFor(url).send({
      method: 'PATCH',
      path: '/api/v1/namespaces/d/configmaps/a?fieldManager=m',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"a":1}',
    });
    expect(seen).toEqual({
      method: 'PATCH',
      url: '/api/v1/namespaces/d/configmaps/a?fieldManager=m',
      auth: 'Bearer t0k3n',
      type: 'application/merge-patch+json',
      body: '{"a":1}',
    });
    expect(res).toEqual({ status: 422, headers: expect.objectContaining({ 'retry-after': '3' }), body: '{"kind":"Status"}' });
  });

  it('rejects with ConnectionReset when the server drops the connection mid-request', async () => {
    const url = await serve((req) => req.socket.destroy());
    const err = await transportFor(url)
      .send({ method: 'GET', path: '/api', headers: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect(err).toMatchObject({ reason: 'ConnectionReset', method: 'GET', path: '/api' });
  });

  it('rejects with ConnectionRefused when nothing listens', async () => {
    const url = await serve(() => undefined);
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    await expect(transportFor(url).send({ method: 'POST', path: '/api', headers: {} })).rejects.toMatchObject({
      reason: 'ConnectionRefused',
    });
  });

  it('rejects with the abort reason when the signal aborts while waiting for the response', async () => {
    let arrived = false;
    const url = await serve(() => {
      arrived = true; // never answers
    });
    const abort = new AbortController();
    const pending = transportFor(url).send({ method: 'GET', path: '/api', headers: {}, signal: abort.signal });
    while (!arrived) await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error('stop');
    abort.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects with NoCluster when the KubeConfig has no current cluster', async () => {
    const t = new KubeConfigTransport(new KubeConfig());
    await expect(t.send({ method: 'GET', path: '/api', headers: {} })).rejects.toMatchObject({ reason: 'NoCluster' });
  });
});
