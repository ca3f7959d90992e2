import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Executable names of Chromium and Chrome, in the order they are looked for on `PATH`. */
export const CHROMIUM_NAMES: readonly string[] = Object.freeze(['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']);

/**
 * The Chromium to drive: `PROTEAN_CHROMIUM` when set (it must be
 * executable), else the first of {@link CHROMIUM_NAMES} on `PATH`;
 * undefined when there is none.
 */
export function findChromium(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const explicit = env['PROTEAN_CHROMIUM'];
  if (explicit !== undefined && explicit !== '') {
    if (!isExecutable(explicit)) throw new Error(`PROTEAN_CHROMIUM=${explicit} is not an executable file`);
    return explicit;
  }
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const name of CHROMIUM_NAMES) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
