#!/usr/bin/env node
// Runs a command on the Node.js the workspace needs. The workspace's
// @kubernetes/client-node 2.x (undici 8) needs Node.js >= 22.19
// (workspaceMinNode): when the `node` running this script is that or newer
// the command runs as is, else
// Node.js WORKSPACE_NODE_VERSION is fetched once from the npm registry
// (cached under ~/.cache/protean, as scripts/test-all.mjs does) and the command
// runs with it first on PATH, so `node`, `pnpm` and every script they spawn use it.
// When that Node cannot be fetched it stops at once with one line naming the
// Node found, the one needed and the fix.
// Usage: node scripts/with-node.mjs <command> [args...]
// Every root script that runs workspace code goes through here (package.json).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { obtainNode } from './consumer/obtainNode.mjs';

/** The Node.js the workspace's scripts and tests run on; keep in step with the README's "Node.js" line. */
export const WORKSPACE_NODE_VERSION = '24.22.3';
const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The oldest Node.js the workspace runs on as is, `[major, minor]`: 22.19 while
 * the catalog's @kubernetes/client-node is 2.x (its undici 8 declares >= 22.19),
 * else 20.19 (a copy pinned to client-node 1.4, as scripts/node20-compat.mjs makes).
 */
export function workspaceMinNode(workspaceRoot = root) {
  const catalog = readFileSync(join(workspaceRoot, 'pnpm-workspace.yaml'), 'utf8');
  const pinned = /^\s*'@kubernetes\/client-node':\s*\^?(\d+)/m.exec(catalog)?.[1];
  return Number(pinned ?? 2) >= 2 ? [22, 19] : [20, 19];
}

/** True when `version` ("22.19.0" or "v22.19.0") is at least `min` (`[major, minor]`). */
export function satisfies(version, [needMajor, needMinor]) {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > needMajor || (major === needMajor && minor >= needMinor);
}

/** `~/.cache/protean` (or under XDG_CACHE_HOME): where Node.js and the kube binaries are cached. */
export function proteanCacheDir(env = process.env) {
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'protean');
}

/**
 * `{ bin, cached }` of Node.js `version` from the cache, installed there from
 * the npm registry when missing; throws with the reason when it cannot be.
 */
export function obtainWorkspaceNode(version = WORKSPACE_NODE_VERSION) {
  return obtainNode(version, proteanCacheDir());
}

/**
 * The node binary to run the workspace with: `process.execPath` when it is new
 * enough, else the fetched WORKSPACE_NODE_VERSION. `{ error }` is the one line
 * to print when neither is possible.
 */
export function workspaceNode() {
  const found = process.versions.node;
  const min = workspaceMinNode().join('.');
  if (satisfies(found, workspaceMinNode())) return { bin: process.execPath, fetched: false };
  try {
    const { bin, cached } = obtainWorkspaceNode();
    console.error(
      `protean: the node on PATH is v${found} and the workspace needs >= ${min}: running on Node.js v${WORKSPACE_NODE_VERSION} (${cached ? 'cached' : 'installed from the npm registry'} at ${bin})`,
    );
    return { bin, fetched: true };
  } catch (err) {
    const lines = (err instanceof Error ? err.message : String(err))
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.includes('A complete log'));
    const reason = lines.length > 1 ? `${lines[0]} ${lines.at(-1)?.trim()}` : (lines[0] ?? 'unknown error');
    return {
      error:
        `protean: this workspace needs Node.js >= ${min} (its @kubernetes/client-node 2.x needs it); found v${found} at ${process.execPath}, ` +
        `and fetching Node.js v${WORKSPACE_NODE_VERSION} from the npm registry failed (${reason}). Fix: install Node.js 24 (e.g. \`nvm install 24\`) and run the command again.`,
    };
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [cmd, ...args] = process.argv.slice(2);
  if (cmd === undefined) {
    console.error('usage: node scripts/with-node.mjs <command> [args...]');
    process.exit(2);
  }
  const node = workspaceNode();
  if (node.error !== undefined) {
    console.error(node.error);
    process.exit(1);
  }
  const env = node.fetched ? { ...process.env, PATH: `${dirname(node.bin)}${delimiter}${process.env.PATH ?? ''}` } : process.env;
  const child = spawn(cmd === 'node' ? node.bin : cmd, args, { stdio: 'inherit', env });
  // Pass signals on, as pnpm does: a SIGINT sent to this process alone (not to the terminal's process group) must
  // still stop the child. Each signal is passed on once: after a Ctrl-C this process gets the group's copy and the
  // copy pnpm forwards, and passing both on would give the child a third, which pnpm escalates to SIGTERM.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    let passed = false;
    process.on(signal, () => {
      if (passed) return;
      passed = true;
      child.kill(signal);
    });
  }
  child.on('error', (err) => {
    console.error(`protean: cannot run ${cmd}: ${err.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}
