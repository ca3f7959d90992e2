// Fetches a Node.js binary from the npm registry's node-<platform>-<arch>
// packages into a cache directory, once.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { run, tail } from './run.mjs';

/**
 * Returns the path of a `node` binary of exactly `version`, installing the
 * registry package `node-<platform>-<arch>@<version>` under
 * `<cacheDir>/node-<version>` when it is not there yet (or the cached
 * binary does not print `v<version>`).
 * Easy to get wrong: the package ships only the `node` binary (no npm), so
 * npm and pnpm keep their own install and merely run on it via PATH.
 */
export function obtainNode(version, cacheDir) {
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = join(cacheDir, `node-${version}`);
  const bin = join(prefix, 'node_modules', pkg, 'bin', 'node');
  const current = () => (existsSync(bin) ? run(bin, ['--version']).stdout.trim() : '');
  if (current() === `v${version}`) return { bin, cached: true };
  mkdirSync(prefix, { recursive: true });
  const res = run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--prefer-offline', `${pkg}@${version}`]);
  if (!res.ok) throw new Error(`npm install ${pkg}@${version} failed:\n${tail(res.output)}`);
  const got = current();
  if (got !== `v${version}`) throw new Error(`${bin} prints "${got}", expected v${version}`);
  return { bin, cached: false };
}
