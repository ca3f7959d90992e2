import { errorMessage } from '@protean/core';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A named readiness check; `ready()` false (or throwing) makes `/readyz` answer 503. */
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
}

/**
 * Serves `/metrics` (Prometheus text format), `/healthz` (the process is
 * up) and `/readyz` (every readiness check passes; the body lists failing
 * checks, as kube-apiserver's `/readyz?verbose` does).
 */
export class MetricsServer {
  private constructor(
    private readonly server: Server,
    /** The base URL, e.g. `http://127.0.0.1:9464`. */
    readonly url: string,
  ) {}

  static async start(options: MetricsServerOptions): Promise<MetricsServer> {
    const checks = options.readiness ?? [];
    const server = createServer((req, res) => {
      void handle(req, res, options.registry, checks);
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

async function handle(req: IncomingMessage, res: ServerResponse, registry: Registry, checks: readonly ReadinessCheck[]): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  try {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return reply(res, 405, 'method not allowed\n');
    }
    if (path === '/metrics') {
      const body = await registry.metrics();
      return reply(res, 200, body, registry.contentType);
    }
    if (path === '/healthz' || path === '/livez') {
      return reply(res, 200, 'ok\n');
    }
    if (path === '/readyz') {
      const lines: string[] = [];
      let ready = true;
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
        ready &&= ok;
        lines.push(`[${ok ? '+' : '-'}]${check.name} ${ok ? 'ok' : `failed${reason ? `: ${reason}` : ''}`}`);
      }
      lines.push(ready ? 'readyz check passed' : 'readyz check failed');
      return reply(res, ready ? 200 : 503, `${lines.join('\n')}\n`);
    }
    return reply(res, 404, `not found: ${path}\n`);
  } catch (err) {
    return reply(res, 500, `internal error: ${errorMessage(err)}\n`);
  }
}

function reply(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
