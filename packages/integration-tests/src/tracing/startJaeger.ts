import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@protean/core/testing';

/** Jaeger v2's fixed ports when run without arguments. */
export const JAEGER_OTLP_GRPC = '127.0.0.1:4317';
export const JAEGER_OTLP_HTTP = 'http://127.0.0.1:4318';
export const JAEGER_QUERY = 'http://127.0.0.1:16686';

/** A Jaeger binary was not found where the build puts it. */
export class JaegerMissingError extends Error {
  override readonly name = 'JaegerMissingError';
  constructor(readonly path: string) {
    super(`no Jaeger binary at ${path}: run tools/jaeger/build.sh (or set PROTEAN_JAEGER_BIN_DIR to its output)`);
  }
}

/** A running Jaeger (all in one: OTLP receiver, in-memory store, query API). */
export interface RunningJaeger {
  /** Spans of the traces of `service` whose `operation` matches, as the query API returns them. */
  traces(service: string, operation: string): Promise<JaegerTrace[]>;
  stop(): Promise<void>;
}

export interface JaegerSpan {
  readonly traceID: string;
  readonly spanID: string;
  readonly operationName: string;
  readonly processID: string;
  readonly references: readonly { refType: string; traceID: string; spanID: string }[];
  readonly tags: readonly { key: string; value: unknown }[];
}

export interface JaegerTrace {
  readonly traceID: string;
  readonly spans: readonly JaegerSpan[];
  readonly processes: Readonly<Record<string, { serviceName: string }>>;
}

/** Starts the cached Jaeger binary (PROTEAN_JAEGER_BIN_DIR, else the build's `current`) and waits for its query API. */
export async function startJaeger(): Promise<RunningJaeger> {
  const dir = process.env.PROTEAN_JAEGER_BIN_DIR ?? join(homedir(), '.cache/protean/jaeger/current');
  const bin = join(dir, 'jaeger');
  if (!existsSync(bin)) throw new JaegerMissingError(bin);
  const child: ChildProcess = spawn(bin, [], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`jaeger exited (${child.exitCode}): ${log}`);
        return (await fetch(`${JAEGER_QUERY}/api/services`).catch(() => undefined))?.ok === true;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: 'Jaeger to answer /api/services' },
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    async traces(service, operation) {
      const q = new URLSearchParams({ service, operation, lookback: '1h', limit: '200' });
      const res = await fetch(`${JAEGER_QUERY}/api/traces?${q}`);
      if (!res.ok) return [];
      return ((await res.json()) as { data: JaegerTrace[] | null }).data ?? [];
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
