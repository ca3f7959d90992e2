// Copies the repository's working tree without ignored files.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { run } from './run.mjs';

/**
 * Copies every tracked file and every untracked file that is not ignored
 * (`git ls-files -co --exclude-standard`) from `root` to `dest`, so the copy
 * matches what a clean clone plus the current edits would hold: no
 * node_modules, no dist. Returns the number of files copied.
 * Easy to get wrong: tracked files deleted in the working tree are skipped,
 * as they would be in a commit of the current state.
 */
export function copyWorkspace(root, dest) {
  const res = run('git', ['-C', root, 'ls-files', '-z', '-co', '--exclude-standard']);
  if (!res.ok) throw new Error(`git ls-files failed in ${root}: ${res.output}`);
  let copied = 0;
  for (const file of new Set(res.stdout.split('\0').filter(Boolean))) {
    const from = join(root, file);
    if (!existsSync(from)) continue;
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    copyFileSync(from, join(dest, file));
    copied += 1;
  }
  return copied;
}
