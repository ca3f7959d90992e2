#!/usr/bin/env node
// The `create-protean` bin (`npm create protean`): the process around runCli.
import { runCli } from './runCli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
  cwd: process.cwd(),
});
