import { errorMessage } from '@protean/core';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { ENDPOINT_INDEX_CSP, endpointIndex } from './endpointIndex.js';
import { roundDurations } from './roundDurations.js';
import { handleStatusPage, STATUS_PAGE_PATHS } from './statusPage/handleStatusPage.js';
import type { StatusPageSource } from './statusPage/StatusPageSource.js';

/**
 * A named health check; `ready()` false (or throwing) makes its endpoint
 * answer 503: `/readyz` for a readiness check, `/healthz` for a liveness one.
 */
export interface ReadinessCheck {
  readonly name: string;
  ready(): boolean | { ready: boolean; reason?: string };
}

/** Options of {@link MetricsServer.start}. */
export interface MetricsServerOptions {
  readonly registry: Registry;
  /** Port to listen on; 0 (default) picks a free one. */
  readonly port?: number;
  /** Default `127.0.0.1`; use `0.0.0.0` inside a pod. */
  readonly host?: string;
  readonly readiness?: readonly ReadinessCheck[];
  /** `/healthz` (and `/livez`) checks; none: the endpoint answers 200 while the process serves it. */
  readonly liveness?: readonly ReadinessCheck[];
  /** JSON status pages: `/statusz/<name>` answers `JSON.stringify(page())`. */
  readonly status?: Readonly<Record<string, () => unknown>>;
  /**
   * The live status page, off unless given: `/statusz` (HTML),
   * `/statusz/status.json` and `/statusz/explain`. Read-only (GET and
   * HEAD) and metadata-only, but it shows the names and labels of the
   * objects the controller watches and its error messages to whoever can
   * reach the port: bind `host` accordingly.
   */
  readonly statusPage?: StatusPageSource;
}

/**
 * Serves `/metrics` (Prometheus text format), `/healthz` and `/livez` (every
 * liveness check passes), `/readyz` (every readiness check passes) and the
 * JSON pages `/statusz/<name>`; with `statusPage`, also the status page
 * (`/statusz`, `/statusz/status.json`, `/statusz/explain`). `/` is an HTML
 * index of these. The health bodies list each check, as kube-apiserver's
 * `/readyz?verbose` does; JSON durations (keys ending in `Ms`) are rounded.
 */
export class MetricsServer {
  private constructor(
    private readonly server: Server,
    /** The base URL, e.g. `http://127.0.0.1:9464`. */
    readonly url: string,
  ) {}

  /** Starts listening; rejects when a `status` name collides with a path of the status page. */
  static async start(options: MetricsServerOptions): Promise<MetricsServer> {
    if (options.statusPage !== undefined) {
      const taken = Object.keys(options.status ?? {}).filter((name) => STATUS_PAGE_PATHS.includes(`/statusz/${name}`));
      if (taken.length > 0) {
        throw new TypeError(
          `MetricsServer: status page name(s) ${taken.map((n) => JSON.stringify(n)).join(', ')} collide with the status page`,
        );
      }
    }
    const server = createServer((req, res) => {
      void handle(req, res, options);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    const { address, port } = server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    return new MetricsServer(server, `http://${host}:${port}`);
  }

  /** Stops listening and closes idle and active connections. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, options: MetricsServerOptions): Promise<void> {
  const target = req.url ?? '/';
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  try {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return reply(res, 405, 'method not allowed\n');
    }
    if (path === '/') {
      const html = endpointIndex({ statusNames: Object.keys(options.status ?? {}), statusPage: options.statusPage !== undefined });
      return reply(res, 200, html, 'text/html; charset=utf-8', {
        'Content-Security-Policy': ENDPOINT_INDEX_CSP,
        'X-Content-Type-Options': 'nosniff',
      });
    }
    if (path === '/metrics') {
      const body = await options.registry.metrics();
      return reply(res, 200, body, options.registry.contentType);
    }
    if (path === '/healthz' || path === '/livez') {
      const checks = options.liveness ?? [];
      if (checks.length === 0) return reply(res, 200, 'ok\n');
      return runChecks(res, checks, path.slice(1));
    }
    if (path === '/readyz') return runChecks(res, options.readiness ?? [], 'readyz');
    if (options.statusPage !== undefined) {
      const query = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
      if (handleStatusPage(path, query, res, options.statusPage)) return;
    } else if (STATUS_PAGE_PATHS.includes(path)) {
      return reply(res, 404, `not found: ${path} (the status page is off; it is opt-in: statusPage)\n`);
    }
    const page = path.startsWith('/statusz/') ? options.status?.[path.slice('/statusz/'.length)] : undefined;
    if (page !== undefined) {
      return reply(res, 200, `${JSON.stringify(roundDurations(page()), null, 2)}\n`, 'application/json; charset=utf-8');
    }
    return reply(res, 404, `not found: ${path}\n`);
  } catch (err) {
    return reply(res, 500, `internal error: ${errorMessage(err)}\n`);
  }
}

function runChecks(res: ServerResponse, checks: readonly ReadinessCheck[], what: string): void {
  const lines: string[] = [];
  let passed = true;
  for (const check of checks) {
    let ok: boolean;
    let reason: string | undefined;
    try {
      const r = check.ready();
      ok = typeof r === 'boolean' ? r : r.ready;
      reason = typeof r === 'boolean' ? undefined : r.reason;
    } catch (err) {
      ok = false;
      reason = errorMessage(err);
    }
    passed &&= ok;
    lines.push(`[${ok ? '+' : '-'}]${check.name} ${ok ? 'ok' : `failed${reason ? `: ${reason}` : ''}`}`);
  }
  lines.push(passed ? `${what} check passed` : `${what} check failed`);
  reply(res, passed ? 200 : 503, `${lines.join('\n')}\n`);
}

function reply(
  res: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
