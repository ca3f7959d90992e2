import { findChromium } from './findChromium.js';
import { HeadlessChromium } from './HeadlessChromium.js';

/**
 * The browser of a browser-tier test. Fails (never skips) when there is no
 * Chromium: the root test command decides whether the tier runs, and says
 * why when it does not.
 */
export async function launchForTest(): Promise<HeadlessChromium> {
  const executable = findChromium();
  if (executable === undefined) {
    throw new Error(
      'no Chromium: install it (Debian: apt-get install -y chromium) or set PROTEAN_CHROMIUM to a Chromium or Chrome executable',
    );
  }
  return HeadlessChromium.launch({ executable });
}
