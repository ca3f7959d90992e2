#!/usr/bin/env node
// Entry point of `pnpm demo`: wires the process (argv, env, stdout/stderr,
// signals) to runCli. Everything else lives in runCli and below, so tests
// can run the same code without a child process.
import 'reflect-metadata';
import { runCli } from './runCli.js';

/**
 * Signals this soon after the first are copies of the same request: on
 * Ctrl-C the terminal signals the whole process group and every `pnpm run`
 * level forwards the signal once more, so the controller gets it two or
 * three times within milliseconds. Only a later one forces the exit.
 */
const SAME_REQUEST_MS = 1_000;
const stop = new AbortController();
let firstSignalAt: number | undefined;
/** Set once runCli returned: nothing is left to shut down. */
let finished = false;
const requestStop = (why: string): void => {
  firstSignalAt = performance.now();
  process.stderr.write(`${why}: shutting down gracefully (signal again to force)\n`);
  stop.abort(new Error(why));
};
const onSignal = (signal: NodeJS.Signals): void => {
  // A late copy must not turn a clean stop into death by signal: exit with the code already set.
  if (finished) process.exit();
  if (firstSignalAt === undefined) {
    requestStop(`received ${signal}`);
    return;
  }
  if (performance.now() - firstSignalAt < SAME_REQUEST_MS) return;
  process.stderr.write(`received ${signal} again: exiting without a graceful shutdown\n`);
  process.exit(signal === 'SIGTERM' ? 143 : 130);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// Run as a package script (`pnpm demo`), the controller must not outlive the command:
// a wrapper that dies without passing the signal on (a shell between pnpm and node, a
// killed pnpm) leaves it reparented, and it stops as if signalled.
const parentAtStart = process.ppid;
const parentWatch =
  process.env['npm_lifecycle_event'] !== undefined && parentAtStart > 1
    ? setInterval(() => {
        if (process.ppid !== parentAtStart && firstSignalAt === undefined) requestStop(`parent process ${parentAtStart} exited`);
      }, 250)
    : undefined;
parentWatch?.unref();

process.exitCode = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  stop: stop.signal,
});
finished = true;
clearInterval(parentWatch);

/** Resolves once everything written to `stream` so far has been handed to the OS (or the write failed). */
const flushed = (stream: NodeJS.WriteStream): Promise<void> =>
  new Promise((resolve) => {
    stream.write('', () => resolve());
  });

// Exit explicitly rather than by letting the event loop drain. On a drained loop Node
// closes the signal handles while tearing down, which restores the default action
// (death) for SIGINT and SIGTERM for the last milliseconds of the process. The copy of
// Ctrl-C that pnpm forwards to its script often arrives in exactly that window on a
// busy machine: node then dies of SIGINT after a clean stop, and pnpm, seeing its child
// killed by a signal, kills itself with it. process.exit() leaves the handlers
// installed until the process is gone, so a late copy is swallowed (or, before this
// point, exits through onSignal with the code already set).
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit();
