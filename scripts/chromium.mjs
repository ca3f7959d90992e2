// Finds the Chromium the browser tier drives, or installs Debian's package.
// Used by scripts/test-all.mjs; examples/webapp/src/browser/findChromium.ts
// looks the same way (PROTEAN_CHROMIUM, then these names on PATH).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/** PROTEAN_CHROMIUM when set, else the first known Chromium or Chrome on PATH; undefined when none. */
export function findChromium(env = process.env) {
  if (env.PROTEAN_CHROMIUM) return isExecutable(env.PROTEAN_CHROMIUM) ? env.PROTEAN_CHROMIUM : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const name of NAMES) {
      if (dir !== '' && isExecutable(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/**
 * `{ executable, how }` when a Chromium is found or could be installed
 * (`apt-get install -y chromium`, as root on a system with apt-get), else
 * `{ skip }` with the reason; `{ error }` when PROTEAN_CHROMIUM names no executable.
 */
export function ensureChromium(env = process.env) {
  if (env.PROTEAN_CHROMIUM && !isExecutable(env.PROTEAN_CHROMIUM)) {
    return { error: `PROTEAN_CHROMIUM=${env.PROTEAN_CHROMIUM} is not an executable file` };
  }
  const found = findChromium(env);
  if (found) return { executable: found, how: 'found' };
  const looked = `no ${NAMES.join(', ')} on PATH and PROTEAN_CHROMIUM unset`;
  if (process.platform !== 'linux') return { skip: `${looked}; installing it is automated on Debian/Ubuntu only` };
  if (process.getuid?.() !== 0) return { skip: `${looked}; not running as root, so apt-get cannot install it (apt-get install chromium)` };
  if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0) return { skip: `${looked}; no apt-get to install it with` };
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env: aptEnv, encoding: 'utf8' });
  let res = install();
  // A fresh image has no package lists yet: fetch them once, then try again.
  if (res.status !== 0) {
    spawnSync('apt-get', ['update'], { env: aptEnv, stdio: 'ignore' });
    res = install();
  }
  const installed = findChromium(env);
  if (installed) return { executable: installed, how: 'installed with apt-get install chromium' };
  const last = `${res.stderr ?? ''}${res.stdout ?? ''}`.trim().split('\n').pop() ?? '';
  return { skip: `${looked}; apt-get install chromium failed (exit ${res.status}): ${last}` };
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
