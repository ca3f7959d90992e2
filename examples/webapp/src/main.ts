#!/usr/bin/env node
// Entry point of `pnpm demo`: wires the process (argv, env, stdout/stderr,
// signals) to runCli. Everything else lives in runCli and below, so tests
// can run the same code without a child process.
import 'reflect-metadata';
import { runCli } from './runCli.js';

const stop = new AbortController();
let signals = 0;
const onSignal = (signal: NodeJS.Signals): void => {
  signals++;
  if (signals > 1) {
    process.stderr.write(`received ${signal} again: exiting without a graceful shutdown\n`);
    process.exit(130);
  }
  process.stderr.write(`received ${signal}: shutting down gracefully (again to force)\n`);
  stop.abort(new Error(`received ${signal}`));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

process.exitCode = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  stop: stop.signal,
});
process.off('SIGINT', onSignal);
process.off('SIGTERM', onSignal);
