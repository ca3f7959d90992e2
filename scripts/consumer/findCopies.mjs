// Finds every installed copy of a package in an npm project.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every directory under `projectDir`'s node_modules trees (nested ones
 * included) that holds package `name`, as `{ location, version }` with
 * `location` relative to `projectDir`. This is what Node's resolver can
 * reach, so two entries mean two module instances at run time.
 * Easy to get wrong: symlinked packages are not followed (npm copies
 * `file:` tarballs, so none are expected here).
 */
export function findCopies(projectDir, name) {
  const found = [];
  const visitModules = (modulesDir) => {
    if (!existsSync(modulesDir)) return;
    for (const entry of readdirSync(modulesDir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === '.bin' || entry.name.startsWith('.')) continue;
      if (entry.name.startsWith('@')) {
        for (const scoped of readdirSync(join(modulesDir, entry.name), { withFileTypes: true })) {
          if (scoped.isDirectory()) visitPackage(join(modulesDir, entry.name, scoped.name), `${entry.name}/${scoped.name}`);
        }
      } else {
        visitPackage(join(modulesDir, entry.name), entry.name);
      }
    }
  };
  const visitPackage = (dir, pkgName) => {
    if (pkgName === name) {
      let version = '?';
      try {
        version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
      } catch {
        // A directory without a manifest still shadows resolution; report it as '?'.
      }
      found.push({ location: relative(projectDir, dir), version });
    }
    visitModules(join(dir, 'node_modules'));
  };
  visitModules(join(projectDir, 'node_modules'));
  return found;
}
