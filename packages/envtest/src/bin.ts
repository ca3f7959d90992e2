#!/usr/bin/env node
// The `protean-envtest` command: `protean-envtest build` builds the test
// binaries from the Go module shipped in this package. See envtestCli.ts.
import { runCli } from './envtestCli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
