import type * as http from 'node:http';
import type * as https from 'node:https';
import { failureOf, messageOf } from './failureOf.js';
import { flatHeaders } from './flatHeaders.js';
import type { KubeHttpRequest } from './KubeTransport.js';
import { KubeTransportError } from './KubeTransportError.js';
import type { KubeStreamResponse } from './KubeStreamResponse.js';
import type { PreparedRequest } from './applyCredentials.js';

/**
 * Sends `request` over `node:http`/`node:https` with `agent` (a keep-alive
 * agent, client-node's proxy agent, or `false` for a connection of its
 * own); resolves when the response head arrives. `onSocket` sees the
 * socket once it is assigned, with whether it was reused.
 */
export function http1Request(
  prepared: PreparedRequest,
  request: KubeHttpRequest,
  agent: http.Agent | false | undefined,
  onSocket?: (reused: boolean) => void,
): Promise<KubeStreamResponse> {
  const { method, path, signal } = request;
  const options: https.RequestOptions = { ...prepared.options, headers: { ...prepared.options.headers } };
  if (agent === undefined) {
    // An https agent cannot carry a plain-http request (a proxied cluster with skipTLSVerify on http:).
    if (prepared.plain && options.agent instanceof process.getBuiltinModule('node:https').Agent) delete options.agent;
  } else options.agent = agent;
  if (request.body !== undefined) (options.headers as Record<string, string>)['content-length'] = String(Buffer.byteLength(request.body));
  return new Promise<KubeStreamResponse>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    let answered = false;
    let req: http.ClientRequest | undefined;
    let res: http.IncomingMessage | undefined;
    const onAbort = (): void => {
      const reason: unknown = signal?.reason;
      const err = reason instanceof Error ? reason : new Error(String(reason));
      if (res !== undefined) res.destroy(err);
      req?.destroy(err);
      if (!answered) {
        answered = true;
        reject(reason);
      }
    };
    const fail = (err: unknown, fallback: 'NetworkError' | 'ConnectionReset'): void => {
      if (answered) return;
      answered = true;
      signal?.removeEventListener('abort', onAbort);
      reject(
        signal?.aborted === true ? signal.reason : new KubeTransportError(method, path, failureOf(err, fallback), messageOf(err), err),
      );
    };
    try {
      request.beforeSend?.();
    } catch (err) {
      answered = true;
      reject(err);
      return;
    }
    try {
      const send = prepared.plain ? process.getBuiltinModule('node:http').request : process.getBuiltinModule('node:https').request;
      req = send(prepared.url, options, (r) => {
        res = r;
        // Errors before the caller listens must not become unhandled 'error' events.
        r.on('error', () => undefined);
        r.once('close', () => signal?.removeEventListener('abort', onAbort));
        if (answered) {
          r.destroy();
          return;
        }
        answered = true;
        resolve({ status: r.statusCode ?? 0, headers: flatHeaders(r.headers), body: r, protocol: 'http/1.1' });
      });
    } catch (err) {
      fail(err, 'NetworkError');
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    if (onSocket !== undefined) req.once('socket', () => onSocket(req.reusedSocket));
    // A kept-alive socket the server closed meanwhile fails with ECONNRESET: still a request that got no answer.
    req.on('error', (err) => fail(err, req.reusedSocket ? 'ConnectionReset' : 'NetworkError'));
    req.end(request.body);
  });
}
