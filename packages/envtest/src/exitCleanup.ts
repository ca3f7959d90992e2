import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let installed = false;

function cleanUpNow(): void {
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  liveChildren.clear();
  // Synchronous: nothing asynchronous runs after 'exit'. An etcd data dir alone is 123 MB.
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  liveDirs.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  cleanUpNow();
  uninstall();
  // With no other listener Node would have died of this signal: do so now.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', cleanUpNow);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', cleanUpNow);
  for (const s of SIGNALS) process.off(s, onSignal);
}

function uninstallIfIdle(): void {
  if (liveChildren.size === 0 && liveDirs.size === 0) uninstall();
}

/**
 * Tracks `child` until it exits so that it is SIGKILLed if this Node
 * process exits (or dies of SIGINT/SIGTERM/SIGHUP) first: a failed or
 * interrupted test run must not leave a kube-apiserver or etcd behind.
 *
 * Easy to get wrong: listeners are installed only while something is
 * tracked, so the default signal behaviour is untouched otherwise; a
 * SIGKILL of Node itself cannot be caught and does leak children.
 */
export function killOnExit(child: ChildProcess): void {
  install();
  liveChildren.add(child);
  child.once('exit', () => {
    liveChildren.delete(child);
    uninstallIfIdle();
  });
}

/** Deletes `dir` (recursively) if this Node process exits before {@link forgetOnExit} is called for it. */
export function removeOnExit(dir: string): void {
  install();
  liveDirs.add(dir);
}

/** Stops tracking `dir` (it was removed normally). */
export function forgetOnExit(dir: string): void {
  liveDirs.delete(dir);
  uninstallIfIdle();
}
