import { spawn, type ChildProcess } from 'node:child_process';
import { killOnExit } from './exitCleanup.js';
import type { LogRing } from './LogRing.js';

/** How a process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A child process whose stdout and stderr go into a {@link LogRing}, killed
 * when Node exits (see {@link killOnExit}).
 *
 * Easy to get wrong: `exited` resolves (never rejects), also when the
 * process could not be spawned at all (code null, the error in the log).
 */
export class ManagedProcess {
  readonly exited: Promise<ProcessExit>;
  private exit: ProcessExit | undefined;
  private readonly child: ChildProcess;
  /** Where this process's output starts in the (possibly shared) log. */
  private readonly logMark: number;

  constructor(
    readonly name: string,
    bin: string,
    args: readonly string[],
    readonly log: LogRing,
  ) {
    this.logMark = log.mark();
    this.child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    killOnExit(this.child);
    this.child.stdout?.setEncoding('utf8').on('data', (c: string) => log.write(c));
    this.child.stderr?.setEncoding('utf8').on('data', (c: string) => log.write(c));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        log.push(`[harness] ${name} failed to spawn: ${err.message}`);
        if (this.child.pid === undefined) {
          this.exit = { code: null, signal: null };
          resolve(this.exit);
        }
      });
      // 'close' (not 'exit') so that the last log lines have been read.
      this.child.once('close', (code, signal) => {
        this.exit = { code, signal };
        log.push(`[harness] ${name} exited (code ${code}, signal ${signal})`);
        resolve(this.exit);
      });
    });
  }

  /** True if this process (not an earlier one sharing the log) wrote `needle`. */
  wrote(needle: string): boolean {
    return this.log.includes(needle, this.logMark);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** SIGKILL at once (a crash: no shutdown of its own); resolves once it exited. Idempotent. */
  async kill(): Promise<ProcessExit> {
    if (this.exit !== undefined) return this.exit;
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** SIGTERM, then SIGKILL if still running after `graceMs`; resolves once it exited. Idempotent. */
  async stop(graceMs = 15_000): Promise<ProcessExit> {
    if (this.exit !== undefined) return this.exit;
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.log.push(`[harness] ${this.name} ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
        this.child.kill('SIGKILL');
        resolve();
      }, graceMs);
    });
    try {
      await Promise.race([this.exited, killed]);
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
