import { errorMessage } from '@protean/core';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

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
}

/**
 * Serves `/metrics` (Prometheus text format), `/healthz` and `/livez` (every
 * liveness check passes), `/readyz` (every readiness check passes) and the
 * JSON pages `/statusz/<name>`. The health bodies list each check, as
 * kube-apiserver's `/readyz?verbose` does.
 */
export class MetricsServer {
  private constructor(
    private readonly server: Server,
    /** The base URL, e.g. `http://127.0.0.1:9464`. */
    readonly url: string,
  ) {}

  static async start(options: MetricsServerOptions): Promise<MetricsServer> {
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
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  try {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return reply(res, 405, 'method not allowed\n');
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
    const page = path.startsWith('/statusz/') ? options.status?.[path.slice('/statusz/'.length)] : undefined;
    if (page !== undefined) {
      return reply(res, 200, `${JSON.stringify(page(), null, 2)}\n`, 'application/json; charset=utf-8');
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

function reply(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
