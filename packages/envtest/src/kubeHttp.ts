import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '@protean/core/testing';

/** A JSON object as a test inspects it. */
export type Json = Record<string, unknown>;

/** One HTTP response with its body parsed as JSON when it is JSON. */
export interface KubeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: Json;
}

/** Options of {@link kubeRequest}. */
export interface KubeRequestOptions {
  body?: unknown;
  /** Default `application/json` (with a body). */
  contentType?: string;
  /** Default `application/json`. */
  accept?: string;
}

const USER_AGENT = 'protean-conformance';

/** Request options with the KubeConfig's auth and TLS applied (client-node's one entry point for both). */
async function authorised(kc: KubeConfig, method: string, headers: Record<string, string>): Promise<RequestOptions> {
  const opts: RequestOptions = { method, headers: { 'user-agent': USER_AGENT, ...headers } };
  await kc.applyToHTTPSOptions(opts);
  return opts;
}

function send(url: URL, opts: RequestOptions, onResponse: (res: IncomingMessage) => void): ClientRequest {
  return (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, opts, onResponse);
}

function clusterUrl(kc: KubeConfig, path: string): URL {
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('the KubeConfig has no current cluster');
  return new URL(path, server);
}

/**
 * One request to the KubeConfig's cluster over node:http(s), authenticated
 * by `kc.applyToHTTPSOptions`. Any status resolves; `json` is `{}` when the
 * body is not JSON.
 */
export async function kubeRequest(kc: KubeConfig, method: string, path: string, opts: KubeRequestOptions = {}): Promise<KubeResponse> {
  const headers: Record<string, string> = { accept: opts.accept ?? 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
  const url = clusterUrl(kc, path);
  const reqOpts = await authorised(kc, method, headers);
  return new Promise((resolve, reject) => {
    const req = send(url, reqOpts, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (c: string) => (text += c));
      res.on('error', reject);
      res.on('end', () => {
        let json: Json = {};
        try {
          json = JSON.parse(text) as Json;
        } catch {
          // Not JSON (e.g. /readyz): keep the text only.
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
}

/** One decoded watch event. */
export interface WatchEventLine {
  type: string;
  object: Json & { kind?: string; apiVersion?: string; metadata?: Json };
}

/** Polls `condition` every 20 ms until it holds; rejects after `timeoutMs` naming `what`. */
export function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  return waitFor(condition, { message: what, timeoutMs, intervalMs: 20 });
}

/**
 * A raw watch over HTTP: collects decoded events and how the stream ended
 * ('end' = clean end of the response, 'error' = reset). Always `close()` it.
 */
export class KubeWatch {
  readonly events: WatchEventLine[] = [];
  status = 0;
  headers: IncomingHttpHeaders = {};
  outcome: 'open' | 'end' | 'error' = 'open';
  private buffer = '';
  private req: ClientRequest | undefined;

  private constructor() {}

  /** Opens the watch and resolves once response headers arrived. */
  static async open(kc: KubeConfig, path: string, accept = 'application/json'): Promise<KubeWatch> {
    const w = new KubeWatch();
    const url = clusterUrl(kc, path);
    const opts = await authorised(kc, 'GET', { accept });
    await new Promise<void>((resolve, reject) => {
      w.req = send(url, opts, (res) => {
        w.status = res.statusCode ?? 0;
        w.headers = res.headers;
        resolve();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => w.onData(chunk));
        res.on('end', () => {
          if (w.outcome === 'open') w.outcome = 'end';
        });
        res.on('error', () => (w.outcome = 'error'));
        res.on('aborted', () => (w.outcome = 'error'));
      });
      w.req.on('error', (e) => {
        if (w.outcome === 'open') w.outcome = 'error';
        reject(e);
      });
      w.req.end();
    });
    return w;
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    if (this.status !== 200) return;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line !== '') this.events.push(JSON.parse(line) as WatchEventLine);
    }
  }

  /** The body of a non-200 answer (no events were streamed). */
  get errorBody(): Json {
    try {
      return JSON.parse(this.buffer) as Json;
    } catch {
      return {};
    }
  }

  async waitForEvents(n: number, timeoutMs = 15_000): Promise<WatchEventLine[]> {
    await waitUntil(
      () => this.events.length >= n,
      `${n} watch events (have ${this.events.length}: ${this.events.map((e) => e.type).join(',')})`,
      timeoutMs,
    );
    return this.events;
  }

  async waitForEvent(pred: (e: WatchEventLine) => boolean, what: string, timeoutMs = 15_000): Promise<WatchEventLine> {
    await waitUntil(() => this.events.some(pred), what, timeoutMs);
    return this.events.find(pred) as WatchEventLine;
  }

  async waitForOutcome(timeoutMs = 15_000): Promise<'end' | 'error'> {
    await waitUntil(() => this.outcome !== 'open', 'the watch to end', timeoutMs);
    return this.outcome as 'end' | 'error';
  }

  close(): void {
    this.req?.destroy();
  }
}
