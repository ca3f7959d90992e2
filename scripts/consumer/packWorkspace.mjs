// Lists the workspace's packages and packs the publishable ones: the one
// packing routine behind `pnpm pack:all` and the consumer test.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { run, tail } from './run.mjs';

/**
 * Every package of the pnpm workspace under `root` (the root project
 * excluded), as pnpm itself lists them: `{ name, version, dir, private }`.
 */
export function workspacePackages(root) {
  const res = run('pnpm', ['-r', 'ls', '--depth', '-1', '--json'], { cwd: root });
  if (!res.ok) throw new Error(`pnpm -r ls failed in ${root}: ${tail(res.output)}`);
  return JSON.parse(res.stdout)
    .filter((p) => p.path !== root.replace(/\/$/, ''))
    .map((p) => ({ name: p.name, version: p.version, dir: p.path, private: p.private === true }));
}

/**
 * Packs each of `packages` (from {@link workspacePackages}) with `pnpm pack`
 * into `dest`, one at a time; `pnpm pack` runs the package's `prepack`
 * (its build) first. Calls `onResult({ pkg, ok, file, output })` per package
 * and returns the tarballs made as `{ pkg, file }`.
 *
 * Easy to get wrong: `pnpm -r pack` packs `"private": true` packages too,
 * so callers pass only the publishable ones; this refuses a private one.
 */
export function packPackages(packages, dest, onResult = () => {}) {
  mkdirSync(dest, { recursive: true });
  const made = [];
  for (const pkg of packages) {
    if (pkg.private) throw new Error(`${pkg.name} is private ("private": true in ${pkg.dir}/package.json) and is never packed`);
    // pnpm pack names it <scope>-<name>-<version>.tgz; one left by an earlier run is packed again.
    const expected = `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
    rmSync(join(dest, expected), { force: true });
    const res = run('pnpm', ['pack', '--pack-destination', dest], { cwd: pkg.dir });
    const ok = res.ok && existsSync(join(dest, expected));
    const file = ok ? join(dest, expected) : undefined;
    if (ok) made.push({ pkg, file });
    onResult({ pkg, ok, file, output: ok ? res.output : `no ${expected} made\n${tail(res.output)}` });
  }
  return made;
}
