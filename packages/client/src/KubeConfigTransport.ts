import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '@protean/core';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';
import { KubeTransportError, type KubeTransportFailure } from './KubeTransportError.js';

/**
 * The default {@link KubeTransport}: `node:http`/`node:https` to the
 * KubeConfig's current cluster, authenticated by
 * `kubeConfig.applyToHTTPSOptions()` on every request, so rotated tokens,
 * exec plugins and token files are always current (with
 * `@kubernetes/client-node` 1.4 and 2.x alike). Connections are kept alive
 * in this transport's own agents, pooled by TLS identity, so a rotated
 * client certificate opens a new connection; a cluster with a `proxyUrl`
 * uses client-node's agent instead.
 *
 * Easy to get wrong: call {@link close} when done with a transport that
 * outlives its process's work (tests), or idle sockets linger until the
 * server closes them.
 */
export class KubeConfigTransport implements KubeTransport {
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });

  constructor(private readonly kubeConfig: KubeConfig) {}

  async send(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    const { method, path, signal } = request;
    signal?.throwIfAborted();
    const opts: https.RequestOptions = { method, headers: { ...request.headers } };
    try {
      await this.kubeConfig.applyToHTTPSOptions(opts);
    } catch (err) {
      signal?.throwIfAborted();
      throw new KubeTransportError(
        method,
        path,
        'CredentialsError',
        `applying the KubeConfig's credentials failed: ${errorMessage(err)}`,
        err,
      );
    }
    signal?.throwIfAborted();
    const cluster = this.kubeConfig.getCurrentCluster();
    const server = cluster?.server;
    if (server === undefined || server === '') {
      throw new KubeTransportError(method, path, 'NoCluster', 'the KubeConfig has no current cluster with a server URL');
    }
    const url = new URL(server.replace(/\/+$/, '') + path);
    const plain = url.protocol === 'http:';
    if ((cluster?.proxyUrl ?? '') === '') opts.agent = plain ? this.httpAgent : this.httpsAgent;
    // An https agent cannot carry a plain-http request (a proxied cluster with skipTLSVerify on http:).
    else if (plain && opts.agent instanceof https.Agent) delete opts.agent;
    if (request.body !== undefined) (opts.headers as Record<string, string>)['content-length'] = String(Buffer.byteLength(request.body));
    return new Promise<KubeHttpResponse>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const fail = (err: unknown, reason: KubeTransportFailure): void => {
        finish(() =>
          reject(
            signal?.aborted === true ? signal.reason : new KubeTransportError(method, path, failureOf(err, reason), errorMessage(err), err),
          ),
        );
      };
      const req = (plain ? http : https).request(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => fail(err, 'ConnectionReset'));
        res.on('close', () => {
          if (!res.complete) fail(new Error('connection closed before the response ended'), 'ConnectionReset');
        });
        res.on('end', () =>
          finish(() =>
            resolve({
              status: res.statusCode ?? 0,
              headers: flatHeaders(res.headers),
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          ),
        );
      });
      const onAbort = (): void => {
        finish(() => reject(signal?.reason));
        req.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => fail(err, 'NetworkError'));
      req.end(request.body);
    });
  }

  /** Destroys the kept-alive connections. The transport still works afterwards (it opens new ones). */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The failure a Node socket error stands for (its string `code`), else `fallback`. */
function failureOf(err: unknown, fallback: KubeTransportFailure): KubeTransportFailure {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return 'ConnectionRefused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'ConnectionReset';
  return fallback;
}
