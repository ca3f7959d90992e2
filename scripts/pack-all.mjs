#!/usr/bin/env node
// `pnpm pack:all`: packs every publishable workspace package (each one's
// `prepack` builds it first) into one directory and skips the private ones
// (`pnpm -r pack` would pack those too). Fails when a tarball holds test code
// or test support (*.test.*, *.testkit.*, test-helpers/, __tests__/).
//
// Usage: node scripts/pack-all.mjs [--out <dir>]   (default: packed/ in the repository root)
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { packPackages, workspacePackages } from './consumer/packWorkspace.mjs';
import { testSupportInTarball } from './consumer/testSupport.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({ options: { out: { type: 'string', default: resolve(root, 'packed') } } });
const all = workspacePackages(root);
const skipped = all.filter((p) => p.private).map((p) => p.name);
console.log(`not packed (private): ${skipped.join(', ')}`);
let failed = 0;
packPackages(
  all.filter((p) => !p.private),
  resolve(args.out),
  ({ pkg, ok, file, output }) => {
    if (!ok) {
      failed += 1;
      return console.error(`FAILED ${pkg.name}: ${output}`);
    }
    // Tests and their support code are never published (from the tarball's listing).
    const testSupport = testSupportInTarball(file);
    if (testSupport.length > 0) {
      failed += 1;
      return console.error(`FAILED ${pkg.name}: test code or test support in ${basename(file)}:\n  ${testSupport.join('\n  ')}`);
    }
    console.log(`packed ${pkg.name}@${pkg.version}: ${file}`);
  },
);
process.exitCode = failed === 0 ? 0 : 1;
