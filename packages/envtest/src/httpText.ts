import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';

/** TLS material for an HTTPS request (PEM strings). */
export interface TlsMaterial {
  ca: string;
  cert: string;
  key: string;
}

/** The status and body text of one HTTP response. */
export interface TextResponse {
  status: number;
  body: string;
}

/** User-Agent of the harness's own requests (compact JSON: the server pretty-prints for curl). */
export const HARNESS_USER_AGENT = 'protean-kube-harness';

/**
 * One HTTP(S) request without connection reuse, body read as text. Rejects
 * on connection errors and after `timeoutMs` without a complete response.
 *
 * Easy to get wrong: a non-2xx status resolves (callers check `status`).
 */
export function httpText(
  url: string,
  opts: { method?: string; body?: string; tls?: TlsMaterial; timeoutMs?: number } = {},
): Promise<TextResponse> {
  const u = new URL(url);
  const headers: Record<string, string> = { 'user-agent': HARNESS_USER_AGENT, accept: 'application/json, */*' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const options: RequestOptions = { method: opts.method ?? 'GET', headers, agent: false };
  if (opts.tls !== undefined) Object.assign(options, opts.tls);
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(u, options, (res) => {
      res.setEncoding('utf8');
      let body = '';
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.setTimeout(opts.timeoutMs ?? 5000, () => req.destroy(new Error(`${opts.method ?? 'GET'} ${url} timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}
