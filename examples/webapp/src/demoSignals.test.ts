import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = join(packageDir, '..', '..');

interface Run {
  readonly child: ChildProcess;
  readonly out: () => string;
  readonly err: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const runs: Run[] = [];

/**
 * Starts `pnpm demo ...` as a terminal would start a job: in a process
 * group of its own (so a "Ctrl-C" can signal the whole group), with the
 * test's own node first on PATH (pnpm and the demo run on it).
 */
function startDemo(cwd: string, args: string[]): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}` };
  delete env['KUBECONFIG'];
  const child = spawn('pnpm', ['demo', '--', ...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const run = { child, out: () => out, err: () => err, exited };
  runs.push(run);
  return run;
}

async function waitForOutput(run: Run, text: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!run.out().includes(text)) {
    if (run.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`demo never printed ${JSON.stringify(text)}; stdout:\n${run.out()}\nstderr:\n${run.err()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** True while any process of the group (pnpm, a nested pnpm, node) is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

afterEach(() => {
  for (const run of runs.splice(0)) {
    if (run.child.pid !== undefined && groupAlive(run.child.pid)) process.kill(-run.child.pid, 'SIGKILL');
  }
});

describe('pnpm demo under signals (started like a user, in its own process group)', () => {
  let server: InMemoryApiServer;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    dir = mkdtempSync(join(tmpdir(), 'webapp-signals-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeConfig().exportConfig());
  });

  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['Ctrl-C (SIGINT to the process group)', 'repository root', ['--serve'], 'group', 'SIGINT'],
    ['SIGTERM to the pnpm process only', 'repository root', ['--serve'], 'pnpm', 'SIGTERM'],
    ['SIGTERM to the pnpm process only', 'package directory', ['--kubeconfig', '<kubeconfig>'], 'pnpm', 'SIGTERM'],
    ['Ctrl-C (SIGINT to the process group)', 'package directory', ['--kubeconfig', '<kubeconfig>'], 'group', 'SIGINT'],
  ] as const)(
    '%s from the %s (%j): graceful stop, exit code 0, nothing left running',
    async (_what, where, args, target, signal) => {
      const cwd = where === 'repository root' ? repoRoot : packageDir;
      const run = startDemo(
        cwd,
        args.map((a) => (a === '<kubeconfig>' ? kubeconfig : a)).concat(['--metrics-port', '0', '--metrics-host', '127.0.0.1']),
      );
      const pid = run.child.pid!;
      await waitForOutput(run, 'Ctrl-C to stop');

      process.kill(target === 'group' ? -pid : pid, signal);
      const { code, signal: killedBy } = await run.exited;

      expect({ code, killedBy }).toEqual({ code: 0, killedBy: null });
      // On a Ctrl-C from the root, the node process also gets the copies each pnpm level forwards (the inner pnpm
      // turns a second SIGINT into a SIGTERM), and under load one of those may arrive first: any of them starts
      // the same graceful stop.
      const received =
        target === 'group'
          ? /received SIG(INT|TERM): shutting down gracefully/
          : new RegExp(`received ${signal}: shutting down gracefully`);
      expect(run.err()).toMatch(received);
      expect(run.out()).toMatch(/controller stopped\n/);
      expect(run.err()).not.toMatch(/ELIFECYCLE|ERR_PNPM|exiting without a graceful shutdown/);
      // pnpm returned only after the node process it ran had exited.
      expect(groupAlive(pid)).toBe(false);
    },
    120_000,
  );
});
