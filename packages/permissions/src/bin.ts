#!/usr/bin/env node
// The `protean-permissions` command: prints the RBAC a running controller's
// recorded accesses need, or compares them with manifests. See permissionsCli.ts.
import { runPermissionsCli } from './permissionsCli.js';

process.exitCode = await runPermissionsCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
