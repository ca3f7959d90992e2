import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '@protean/core';
import type { Lease } from './Lease.js';
import type { LeaseClient } from './LeaseClient.js';
import { LeaseRequestError, type LeaseVerb } from './LeaseRequestError.js';

const MAX_BODY_BYTES = 1024 * 1024;
const USER_AGENT = 'protean-leader-election';

function leasePath(namespace: string, name?: string): string {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** What one request answered. */
interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * A {@link LeaseClient} over `node:http`/`node:https`, authenticated by
 * `kubeConfig.applyToHTTPSOptions()` on every request (so rotated tokens
 * and certificates are used), as works with `@kubernetes/client-node` 1.4
 * and 2.x alike. Only the KubeConfig's types are used: client-node's
 * generated API clients differ between the two majors.
 *
 * Easy to get wrong: client-node 1.4 refuses a plain `http://` cluster
 * unless the cluster entry sets `skipTLSVerify` (the in-memory API server's
 * KubeConfig does).
 */
export class KubeLeaseClient implements LeaseClient {
  constructor(private readonly kubeConfig: KubeConfig) {}

  async get(namespace: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    const answer = await this.request('get', `${namespace}/${name}`, 'GET', leasePath(namespace, name), undefined, signal);
    if (answer.status === 404) return undefined;
    return this.expect(200, 'get', `${namespace}/${name}`, answer);
  }

  async create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    const { namespace, key } = where(lease);
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease };
    return this.expect(201, 'create', key, await this.request('create', key, 'POST', leasePath(namespace), body, signal));
  }

  async update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    const { namespace, key } = where(lease);
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease };
    return this.expect(
      200,
      'update',
      key,
      await this.request('update', key, 'PUT', leasePath(namespace, lease.metadata.name), body, signal),
    );
  }

  private expect(status: number, verb: LeaseVerb, key: string, answer: Answer): Lease {
    if (answer.status === status && isLease(answer.body)) return answer.body;
    const s = isObject(answer.body) ? answer.body : {};
    const reason = typeof s['reason'] === 'string' ? s['reason'] : undefined;
    const message =
      typeof s['message'] === 'string' ? s['message'] : answer.status === status ? 'the answer is not a Lease' : 'no Status body';
    const fields: { status: number; reason?: string } = { status: answer.status };
    if (reason !== undefined) fields.reason = reason;
    throw new LeaseRequestError(verb, key, `${answer.status}${reason === undefined ? '' : ` ${reason}`}: ${message}`, fields);
  }

  private async request(verb: LeaseVerb, key: string, method: string, path: string, body: unknown, signal: AbortSignal): Promise<Answer> {
    const aborted = (): LeaseRequestError =>
      new LeaseRequestError(verb, key, `aborted: ${errorMessage(signal.reason)}`, { reason: 'Aborted', cause: signal.reason });
    if (signal.aborted) throw aborted();
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': USER_AGENT };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    const opts: https.RequestOptions = { method, headers };
    try {
      await this.kubeConfig.applyToHTTPSOptions(opts);
    } catch (err) {
      throw new LeaseRequestError(verb, key, `applying the KubeConfig's credentials failed: ${errorMessage(err)}`, {
        reason: 'CredentialsError',
        cause: err,
      });
    }
    const cluster = this.kubeConfig.getCurrentCluster();
    const server = cluster?.server;
    if (server === undefined || server === '') {
      throw new LeaseRequestError(verb, key, 'the KubeConfig has no current cluster with a server URL', { reason: 'NoCluster' });
    }
    const url = new URL(server.replace(/\/+$/, '') + path);
    const plain = url.protocol === 'http:';
    // As in the watch manager: client-node 2.x caches one agent per cluster and user built from the first
    // call's TLS options, which would pin a rotated client certificate; only a proxy needs its agent.
    if ((cluster?.proxyUrl ?? '') === '') opts.agent = false;
    else if (plain && opts.agent instanceof https.Agent) delete opts.agent;
    return new Promise<Answer>((resolve, reject) => {
      const onResponse = (res: http.IncomingMessage): void => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        res.on('error', (err) =>
          reject(
            signal.aborted
              ? aborted()
              : new LeaseRequestError(verb, key, `reading the answer failed: ${errorMessage(err)}`, { reason: 'NetworkError', cause: err }),
          ),
        );
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = { message: text.trim().slice(0, 200) };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      };
      try {
        const req = (plain ? http : https).request(url, { ...opts, signal }, onResponse);
        req.on('error', (err) =>
          reject(
            signal.aborted
              ? aborted()
              : new LeaseRequestError(verb, key, `request failed: ${errorMessage(err)}`, { reason: 'NetworkError', cause: err }),
          ),
        );
        req.end(payload);
      } catch (err) {
        reject(new LeaseRequestError(verb, key, `request failed: ${errorMessage(err)}`, { reason: 'NetworkError', cause: err }));
      }
    });
  }
}

function where(lease: Lease): { namespace: string; key: string } {
  const namespace = lease.metadata.namespace ?? '';
  return { namespace, key: `${namespace}/${lease.metadata.name}` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isLease(value: unknown): value is Lease {
  return isObject(value) && isObject(value['metadata']) && typeof value['metadata']['name'] === 'string';
}
