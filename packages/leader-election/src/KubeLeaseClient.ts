import {
  type KubeConfigLike,
  KubeTransportError,
  sharedConnectionPool,
  type KubeConnectionPool,
  type KubeHttpRequest,
} from '@protean/transport';
import { errorMessage } from '@protean/core';
import { type StatusBody } from '@protean/core/internal';
import { type KubeStreamResponse } from '@protean/transport/internal';
import type { Lease } from './Lease.js';
import type { LeaseClient, LeaseWatchEvent, LeaseWatchSelector } from './LeaseClient.js';
import { LeaseRequestError, type LeaseVerb } from './LeaseRequestError.js';

const MAX_BODY_BYTES = 1024 * 1024;
const USER_AGENT = 'protean-leader-election';
/** How long the server keeps one lease watch open before the client opens the next. */
const WATCH_TIMEOUT_SECONDS = 300;

function leasePath(namespace: string, name?: string): string {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** What one request answered: its status and headers, its body as text and parsed (`undefined` for a watch's). */
interface Answer {
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly text: string;
  readonly body: unknown;
}

/**
 * A {@link LeaseClient} over the KubeConfig's shared `@protean/transport`
 * connection (`sharedConnectionPool(kubeConfig)`, or the pool given): its
 * gets, updates and lease watches are streams of the same HTTP/2
 * connection as the informers. Authenticated by
 * `kubeConfig.applyToHTTPSOptions()` on every request (so rotated tokens
 * and certificates are used), as works with `@kubernetes/client-node` 1.4
 * and 2.x alike. Only the KubeConfig's types are used: client-node's
 * generated API clients differ between the two majors.
 *
 * Easy to get wrong: client-node 1.4 refuses a plain `http://` cluster
 * unless the cluster entry sets `skipTLSVerify` (the in-memory API server's
 * KubeConfig does). A dead shared connection is found by the pool's PING
 * (after 30 s without a byte, 15 s to answer), as with client-go; a
 * renewal on it fails by its own deadline meanwhile.
 */
export class KubeLeaseClient implements LeaseClient {
  private readonly pool: KubeConnectionPool;

  constructor(kubeConfig: KubeConfigLike, options: { readonly connectionPool?: KubeConnectionPool } = {}) {
    this.pool = options.connectionPool ?? sharedConnectionPool(kubeConfig);
  }

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

  /**
   * A WATCH of the namespace's leases (`fieldSelector=metadata.name=<name>`
   * for one, `labelSelector` for a group), from the current state: an
   * `ADDED` per existing lease, then every change, until the server ends
   * it (`timeoutSeconds`, about five minutes) or `signal` aborts.
   */
  async watch(
    namespace: string,
    selector: LeaseWatchSelector,
    onEvent: (event: LeaseWatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const key = `${namespace}/${selector.name ?? '*'}`;
    const q = new URLSearchParams({ watch: 'true', timeoutSeconds: String(WATCH_TIMEOUT_SECONDS) });
    if (selector.name !== undefined) q.set('fieldSelector', `metadata.name=${selector.name}`);
    if (selector.labelSelector !== undefined && selector.labelSelector !== '') q.set('labelSelector', selector.labelSelector);
    const path = `${leasePath(namespace)}?${q.toString()}`;
    let buffer = '';
    let failure: LeaseRequestError | undefined;
    const onLine = (line: string): void => {
      if (line.trim() === '' || failure !== undefined) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        failure = new LeaseRequestError('watch', key, `the watch sent a line that is not JSON: ${line.slice(0, 120)}`, {
          reason: 'BadResponse',
        });
        return;
      }
      const type = isObject(parsed) ? parsed['type'] : undefined;
      const object = isObject(parsed) ? parsed['object'] : undefined;
      if (type === 'ERROR') {
        const s = isObject(object) ? object : {};
        failure = new LeaseRequestError('watch', key, `the watch ended with an error: ${String(s['message'] ?? 'no message')}`, {
          status: typeof s['code'] === 'number' ? s['code'] : undefined,
          reason: typeof s['reason'] === 'string' ? s['reason'] : undefined,
          serverMessage: typeof s['message'] === 'string' ? s['message'] : undefined,
          body: s['kind'] === 'Status' ? (s as StatusBody) : undefined,
          path,
        });
        return;
      }
      if ((type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') && isLease(object)) onEvent({ type, lease: object });
    };
    const answer = await this.request('watch', key, 'GET', path, undefined, signal, (chunk) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        onLine(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    }).catch((err: unknown) => {
      // An abort is the caller's way of closing the watch.
      if (signal.aborted) return undefined;
      throw err;
    });
    if (answer === undefined) return;
    onLine(buffer);
    if (failure !== undefined) throw failure;
    if (answer.status !== 200) this.expect(200, 'watch', key, answer);
  }

  private expect(status: number, verb: LeaseVerb, key: string, answer: Answer): Lease {
    if (answer.status === status && isLease(answer.body)) return answer.body;
    throw LeaseRequestError.fromAnswer(
      verb,
      key,
      { status: answer.status, headers: answer.headers, body: answer.text },
      { path: answer.path, noMessage: answer.status === status ? 'the answer is not a Lease' : 'no Status body' },
    );
  }

  /** One request; with `onChunk` a 200 answer's body is streamed to it instead of parsed (a watch). */
  private async request(
    verb: LeaseVerb,
    key: string,
    method: KubeHttpRequest['method'],
    path: string,
    body: unknown,
    signal: AbortSignal,
    onChunk?: (chunk: string) => void,
  ): Promise<Answer> {
    const aborted = (): LeaseRequestError =>
      new LeaseRequestError(verb, key, `aborted: ${errorMessage(signal.reason)}`, { reason: 'Aborted', cause: signal.reason });
    if (signal.aborted) throw aborted();
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    let res: KubeStreamResponse;
    try {
      res = await this.pool.request({ method, path, headers, signal, ...(payload === undefined ? {} : { body: payload }) });
    } catch (err) {
      if (signal.aborted) throw aborted();
      throw requestFailure(verb, key, err);
    }
    const stream = res.body;
    return new Promise<Answer>((resolve, reject) => {
      const broke = (what: string) => (err: unknown) =>
        reject(
          signal.aborted
            ? aborted()
            : new LeaseRequestError(verb, key, `${what}: ${errorMessage(err)}`, { reason: 'NetworkError', cause: err }),
        );
      if (onChunk !== undefined && res.status === 200) {
        stream.setEncoding('utf8');
        stream.on('data', onChunk);
        stream.on('error', broke('the watch broke'));
        const streamed: Answer = { path, status: 200, headers: res.headers, text: '', body: undefined };
        stream.on('end', () => resolve(streamed));
        // A connection cut without a clean end of the body (settling twice is a no-op).
        stream.on('close', () =>
          signal.aborted || stream.readableEnded
            ? resolve(streamed)
            : reject(new LeaseRequestError(verb, key, 'the watch connection closed', { reason: 'NetworkError' })),
        );
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      stream.on('error', broke('reading the answer failed'));
      stream.on('close', () => {
        if (!stream.readableEnded) broke('reading the answer failed')(new Error('connection closed before the answer ended'));
      });
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = { message: text.trim().slice(0, 200) };
        }
        resolve({ path, status: res.status, headers: res.headers, text, body: parsed });
      });
    });
  }
}

/** The lease error for a request that got no answer, keeping the transport's reason where the lease client has one. */
function requestFailure(verb: LeaseVerb, key: string, err: unknown): LeaseRequestError {
  if (err instanceof KubeTransportError && err.reason === 'CredentialsError') {
    const cause: unknown = err.cause ?? err;
    return new LeaseRequestError(verb, key, `applying the KubeConfig's credentials failed: ${errorMessage(cause)}`, {
      reason: 'CredentialsError',
      cause,
    });
  }
  if (err instanceof KubeTransportError && err.reason === 'NoCluster') {
    return new LeaseRequestError(verb, key, 'the KubeConfig has no current cluster with a server URL', { reason: 'NoCluster', cause: err });
  }
  return new LeaseRequestError(verb, key, `request failed: ${errorMessage(err)}`, { reason: 'NetworkError', cause: err });
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
