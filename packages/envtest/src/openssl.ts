import { execFile, execFileSync } from 'node:child_process';
import { OpensslError } from './OpensslError.js';

const MISSING =
  'openssl is not on PATH; the real kube-apiserver harness needs it to make test certificates. ' +
  'Install it (Debian/Ubuntu package `openssl`: apt-get install openssl).';

function failure(args: readonly string[], err: unknown, stderr: string): OpensslError {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new OpensslError(MISSING, { cause: err });
  return new OpensslError(`openssl ${args.join(' ')} failed: ${stderr.trim() || String(err)}`, { cause: err });
}

/** Runs `openssl args...` in `cwd`; rejects with {@link OpensslError}. */
export function runOpenssl(args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('openssl', args, { cwd }, (err, _stdout, stderr) => {
      if (err === null) resolve();
      else reject(failure(args, err, String(stderr)));
    });
  });
}

/** Synchronous {@link runOpenssl}, for APIs that must return a value at once. */
export function runOpensslSync(args: readonly string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw failure(args, err, stderr);
  }
}
