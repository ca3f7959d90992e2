import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { HashRange } from '@protean/sharding';
import { REPLICA_CONFIG_ENV, type ReplicaCommand, type ReplicaConfig, type ReplicaEvent } from './replicaProtocol.js';

/**
 * The compiled replica entry point. The path is the same seen from `src/`
 * (under Jest) and from `dist/` (`node dist/main.js`), so both run the
 * built replica.
 */
export const REPLICA_ENTRY = fileURLToPath(new URL('../dist/replicaMain.js', import.meta.url));

/** How a replica process ended. */
export interface ReplicaExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * One replica of the sharded controller as a child process
 * (`dist/replicaMain.js`, forked with an IPC channel): what it reported
 * last, and the means to stop it gracefully or kill it.
 *
 * Easy to get wrong: `kill()` is a SIGKILL, a true crash: the replica
 * neither drains nor releases its member lease, so the others take its
 * share over only once the lease has expired.
 */
export class ReplicaProcess {
  readonly identity: string;
  readonly pid: number;
  /** The share it reported last (empty until its first report). */
  ranges: readonly HashRange[] = [];
  /** The live members it saw at its last share change. */
  members: readonly string[] = [];
  /** Its set-up report: the shard filter mode and the keys of its split. */
  started: Extract<ReplicaEvent, { type: 'started' }> | undefined;
  ready = false;
  /** Why setup failed, if it did. */
  failure: string | undefined;
  readonly exited: Promise<ReplicaExit>;
  private readonly child: ChildProcess;

  /**
   * Forks the replica. `onEvent` gets every report after this object
   * recorded it; `onStderr` every line of its logs (pino JSON).
   * @throws Error when the replica entry point has not been built.
   */
  constructor(
    config: ReplicaConfig,
    onEvent: (replica: ReplicaProcess, event: ReplicaEvent) => void,
    onStderr: (line: string) => void,
    entry: string = REPLICA_ENTRY,
  ) {
    if (!existsSync(entry)) throw new Error(`replica entry point ${entry} is missing: build the example first (tsc -b)`);
    this.identity = config.identity;
    this.child = fork(entry, [], {
      env: { ...process.env, [REPLICA_CONFIG_ENV]: JSON.stringify(config) },
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    if (this.child.pid === undefined) throw new Error(`could not start replica ${config.identity}`);
    this.pid = this.child.pid;
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    // A send racing the child's exit fails with EPIPE; the exit itself is what counts.
    this.child.on('error', () => {});
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (stream !== null) createInterface({ input: stream }).on('line', onStderr);
    }
    this.child.on('message', (event: ReplicaEvent) => {
      if (event.type === 'started') this.started = event;
      else if (event.type === 'ready') this.ready = true;
      else if (event.type === 'ranges') {
        this.ranges = event.ranges;
        this.members = event.members;
      } else if (event.type === 'failed') this.failure = event.message;
      onEvent(this, event);
    });
  }

  /** True until the process exited. */
  alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL: no drain, no lease release. Resolves once the process is gone. */
  async kill(): Promise<ReplicaExit> {
    if (this.alive()) this.child.kill('SIGKILL');
    return this.exited;
  }

  /** Asks for a graceful stop (drain, release the member lease); SIGKILL after `timeoutMs`. */
  async stop(timeoutMs: number): Promise<ReplicaExit> {
    if (!this.alive()) return this.exited;
    const command: ReplicaCommand = { type: 'stop' };
    if (this.child.connected) this.child.send(command, (err) => err && this.child.kill('SIGTERM'));
    else this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
