import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A GET's status and parsed JSON body (`undefined` when the body is not JSON). */
export interface JsonAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One GET of `path` (with its query) on the KubeConfig's current cluster, with its credentials. */
export function kubeGetJson(kubeConfig: KubeConfig, path: string, signal: AbortSignal): Promise<JsonAnswer> {
  return kubeJson(kubeConfig, 'GET', path, undefined, signal);
}

/** One request with an optional JSON body on the KubeConfig's current cluster, with its credentials. */
export async function kubeJson(
  kubeConfig: KubeConfig,
  method: string,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'protean-sharding' };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  const opts: https.RequestOptions = { method, headers };
  await kubeConfig.applyToHTTPSOptions(opts);
  const cluster = kubeConfig.getCurrentCluster();
  const server = cluster?.server;
  if (server === undefined || server === '') throw new Error('the KubeConfig has no current cluster with a server URL');
  const url = new URL(server.replace(/\/+$/, '') + path);
  const plain = url.protocol === 'http:';
  if ((cluster?.proxyUrl ?? '') === '') opts.agent = false;
  else if (plain && opts.agent instanceof https.Agent) delete opts.agent;
  return new Promise<JsonAnswer>((resolve, reject) => {
    const req = (plain ? http : https).request(url, { ...opts, signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
