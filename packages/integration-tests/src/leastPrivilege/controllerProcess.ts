// A controller run as a child process (`node dist/main.js`), as a
// Deployment's container would run it: its KubeConfig from KUBECONFIG, its
// identity from POD_NAMESPACE / POD_NAME, its metrics server on a port the
// test picks. Keeps its output and parses the pino JSON lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';

/** A free loopback TCP port (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One HTTP GET on loopback: status and body, or `undefined` when nothing answered. */
export function httpGet(port: number, path: string, timeoutMs = 5_000): Promise<{ status: number; text: string } | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', () => resolve(undefined));
    });
    req.setTimeout(timeoutMs, () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** One pino log line as JSON. */
export type LogLine = Record<string, unknown> & { level?: number; msg?: string };

export class ControllerProcess {
  private output = '';
  readonly startedAt = performance.now();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  constructor(
    readonly name: string,
    script: string,
    readonly port: number,
    env: Record<string, string>,
    cwd?: string,
  ) {
    this.child = spawn(process.execPath, [script], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: string): void => void (this.output += chunk);
    this.child.stdout!.setEncoding('utf8').on('data', keep);
    this.child.stderr!.setEncoding('utf8').on('data', keep);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Every complete output line that parses as a JSON object (stdout and stderr together). */
  logLines(): LogLine[] {
    const lines: LogLine[] = [];
    for (const line of this.output.slice(0, this.output.lastIndexOf('\n') + 1).split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        // Not a log line.
      }
    }
    return lines;
  }

  /** The last `chars` characters of the output, for failure messages. */
  tail(chars = 3_000): string {
    return this.output.slice(-chars);
  }

  get(path: string): Promise<{ status: number; text: string } | undefined> {
    return httpGet(this.port, path);
  }

  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
