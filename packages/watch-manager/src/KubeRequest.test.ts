import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { realClock } from '@protean/core';
import { KubeConnectionPool } from '@protean/transport';
import { KubeRequest } from './KubeRequest.js';

/** An http.Agent that counts the connections it opens. */
class RecordingAgent extends http.Agent {
  connections = 0;

  override createConnection(...args: Parameters<http.Agent['createConnection']>): ReturnType<http.Agent['createConnection']> {
    this.connections += 1;
    return super.createConnection(...args);
  }
}

/**
 * A KubeConfig that behaves like client-node 2.x: `applyToHTTPSOptions`
 * sets the credentials on the options and hands out one cached agent.
 */
function kubeConfigWithCachedAgent(server: string, agent: http.Agent, proxyUrl?: string): KubeConfig {
  const cluster = { name: 'c', server, skipTLSVerify: true, ...(proxyUrl === undefined ? {} : { proxyUrl }) };
  const fake = {
    applyToHTTPSOptions: async (opts: http.RequestOptions) => {
      opts.headers = { ...opts.headers, Authorization: 'Bearer current-token' };
      opts.agent = agent;
    },
    getCurrentCluster: () => cluster,
  };
  return fake as unknown as KubeConfig;
}

describe.each(['shared', 'per-request'] as const)('KubeRequest agent choice (connection: %s)', (mode) => {
  let server: http.Server;
  let url: string;
  let accepted = 0;
  const sockets = new Set<Socket>();
  const seenAuth: (string | undefined)[] = [];
  const pools: KubeConnectionPool[] = [];

  beforeEach(async () => {
    seenAuth.length = 0;
    accepted = 0;
    server = http.createServer((req, res) => {
      seenAuth.push(req.headers.authorization);
      res.end('{}');
    });
    server.on('connection', (s: Socket) => {
      accepted += 1;
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    for (const p of pools.splice(0)) p.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function get(kubeConfig: KubeConfig): Promise<string> {
    let connectionPool: KubeConnectionPool | undefined;
    if (mode === 'shared') {
      connectionPool = new KubeConnectionPool(kubeConfig);
      pools.push(connectionPool);
    }
    const req = new KubeRequest({
      kubeConfig,
      connectionPool,
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      verb: 'LIST',
      pathAndQuery: '/api/v1/configmaps',
      accept: 'application/json',
      clock: realClock,
      inactivityTimeoutMs: 10_000,
    });
    try {
      return await req.readText(await req.send());
    } finally {
      req.close();
    }
  }

  it('does not send through the agent client-node hands out, so rotated client certificates are used', async () => {
    const cached = new RecordingAgent();
    try {
      expect(await get(kubeConfigWithCachedAgent(url, cached))).toBe('{}');
      expect(await get(kubeConfigWithCachedAgent(url, cached))).toBe('{}');
      expect(cached.connections).toBe(0);
      expect(seenAuth).toEqual(['Bearer current-token', 'Bearer current-token']);
    } finally {
      cached.destroy();
    }
  });

  it("sends through client-node's agent when the cluster has a proxy", async () => {
    // The recording agent stands in for client-node's proxy agent.
    const proxyAgent = new RecordingAgent();
    try {
      expect(await get(kubeConfigWithCachedAgent(url, proxyAgent, 'http://proxy.invalid:3128'))).toBe('{}');
      expect(proxyAgent.connections).toBe(1);
      expect(seenAuth).toEqual(['Bearer current-token']);
    } finally {
      proxyAgent.destroy();
    }
  });

  it(mode === 'shared' ? 'keeps one connection alive for sequential requests' : 'opens a connection per request', async () => {
    const kc = kubeConfigWithCachedAgent(url, new RecordingAgent());
    const pool = mode === 'shared' ? new KubeConnectionPool(kc) : undefined;
    if (pool !== undefined) pools.push(pool);
    for (const path of ['/a', '/b', '/c']) {
      const req = new KubeRequest({
        kubeConfig: kc,
        connectionPool: pool,
        gvr: { group: '', version: 'v1', resource: 'configmaps' },
        verb: 'LIST',
        pathAndQuery: path,
        accept: 'application/json',
        clock: realClock,
        inactivityTimeoutMs: 10_000,
      });
      try {
        expect(await req.readText(await req.send())).toBe('{}');
      } finally {
        req.close();
      }
    }
    expect(accepted).toBe(mode === 'shared' ? 1 : 3);
  });
});

describe('KubeRequest errors', () => {
  function requestTo(url: string, pathAndQuery: string): KubeRequest {
    const kubeConfig = kubeConfigWithCachedAgent(url, new RecordingAgent());
    return new KubeRequest({
      kubeConfig,
      connectionPool: undefined,
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      verb: 'LIST',
      pathAndQuery,
      accept: 'application/json',
      clock: realClock,
      inactivityTimeoutMs: 10_000,
    });
  }

  it('name the path and query asked for, answered or not', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'no' };
    const server = http.createServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answered = requestTo(url, '/api/v1/configmaps?limit=500');
    const refused = await answered.send().then(
      () => undefined,
      (err: unknown) => err,
    );
    answered.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(refused).toMatchObject({ status: 403, reason: 'Forbidden', method: 'LIST', path: '/api/v1/configmaps?limit=500' });

    // The port is closed now: no answer at all.
    const unanswered = requestTo(url, '/api/v1/configmaps?watch=1');
    const failed = await unanswered.send().then(
      () => undefined,
      (err: unknown) => err,
    );
    unanswered.close();
    expect(failed).toMatchObject({ status: undefined, reason: 'NetworkError', method: 'LIST', path: '/api/v1/configmaps?watch=1' });
  });
});
