import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidOptionError } from './InvalidOptionError.js';
import { PROTEAN_VERSIONS } from './proteanVersions.js';

/** Where a project keeps the tarballs it installs from (inside the Docker build context). */
export const VENDOR_DIR = 'vendor';

/** The file `pnpm pack` writes for a package: `@protean/core@0.1.0` → `protean-core-0.1.0.tgz`. */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/**
 * The `@protean/*` tarballs of this create-protean's versions in `from`,
 * by package name. Every package the project depends on (`needed`) must be
 * there; the others found are vendored too, so the packages' own
 * dependencies on each other resolve to them. Throws
 * `InvalidOptionError` naming the directory and each missing file.
 */
export function findTarballs(from: string, needed: readonly string[]): Map<string, string> {
  if (!existsSync(from) || !statSync(from).isDirectory())
    throw new InvalidOptionError('from', from, 'no such directory (pnpm pack:all in a Protean checkout writes packed/)');
  const present = new Set(readdirSync(from));
  const found = new Map<string, string>();
  for (const [name, version] of Object.entries(PROTEAN_VERSIONS)) {
    const file = tarballName(name, version);
    if (present.has(file)) found.set(name, file);
  }
  const missing = needed.filter((n) => !found.has(n)).map((n) => tarballName(n, PROTEAN_VERSIONS[n] ?? '?'));
  if (missing.length > 0)
    throw new InvalidOptionError('from', from, `missing ${missing.join(', ')} (pack them with pnpm pack:all, from the same checkout)`);
  return found;
}

/** Copies `tarballs` (name → file in `from`) into `<directory>/vendor/`; returns the paths written, relative. */
export function copyTarballs(from: string, directory: string, tarballs: ReadonlyMap<string, string>): string[] {
  mkdirSync(join(directory, VENDOR_DIR), { recursive: true });
  return [...tarballs.values()].map((file) => {
    copyFileSync(join(from, file), join(directory, VENDOR_DIR, file));
    return `${VENDOR_DIR}/${file}`;
  });
}
