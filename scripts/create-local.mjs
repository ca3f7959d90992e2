#!/usr/bin/env node
// `pnpm create:local <directory> [create-protean options]`: a controller project from this checkout, without
// the npm registry. Packs every published package into packed/ (as `pnpm pack:all`), then runs the packed
// create-protean with `--from packed`: the project installs @protean/* from its own vendor/ copies, and its
// Docker image builds from them.
//
// Usage: pnpm create:local ../my-controller --layout sharding --yes
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packed = join(root, 'packed');
// pnpm runs scripts in the repository root; INIT_CWD is where the user typed the command.
const cwd = process.env.INIT_CWD ?? process.cwd();
// A `--` before the options (npm's habit) is not one of create-protean's arguments.
const args = process.argv.slice(2).filter((a) => a !== '--');
if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
  console.log('Usage: pnpm create:local <directory> [create-protean options, e.g. --layout sharding --yes]');
  process.exit(args.length === 0 ? 1 : 0);
}

const pack = spawnSync(process.execPath, [join(root, 'scripts/pack-all.mjs'), '--out', packed], { stdio: 'inherit' });
if (pack.status !== 0) process.exit(pack.status ?? 1);

const { version } = JSON.parse(readFileSync(join(root, 'packages/create-protean/package.json'), 'utf8'));
const generator = join(packed, `create-protean-${version}.tgz`);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// Without pnpm's npm_config_* settings (npm would warn about each one it does not know).
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_config_')));
const create = spawnSync(npm, ['exec', '--yes', `--package=${generator}`, '--', 'create-protean', ...args, '--from', packed], {
  cwd: resolve(cwd),
  env,
  stdio: 'inherit',
});
process.exit(create.status ?? 1);
