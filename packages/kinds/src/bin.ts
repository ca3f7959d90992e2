#!/usr/bin/env node
import { runCrdCli } from './cli.js';

const result = await runCrdCli(process.argv.slice(2));
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.code;
