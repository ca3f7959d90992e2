import { fileURLToPath } from 'node:url';

/**
 * Where the browser tests write their screenshots: `PROTEAN_SCREENSHOT_DIR`,
 * else `.test-results/screenshots/` at the repository root (the root test
 * command empties `.test-results` at its start).
 */
export function screenshotDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const explicit = env['PROTEAN_SCREENSHOT_DIR'];
  if (explicit !== undefined && explicit !== '') return explicit;
  return fileURLToPath(new URL('../../../../.test-results/screenshots/', import.meta.url));
}
