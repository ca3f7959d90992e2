#!/usr/bin/env node
// `pnpm pack:all`: packs every publishable workspace package (each one's
// `prepack` builds it first) into one directory and skips the private ones
// (`pnpm -r pack` would pack those too).
//
// Usage: node scripts/pack-all.mjs [--out <dir>]   (default: packed/ in the repository root)
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { packPackages, workspacePackages } from './consumer/packWorkspace.mjs';

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
    if (ok) console.log(`packed ${pkg.name}@${pkg.version}: ${file}`);
    else {
      failed += 1;
      console.error(`FAILED ${pkg.name}: ${output}`);
    }
  },
);
process.exitCode = failed === 0 ? 0 : 1;
