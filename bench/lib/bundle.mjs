// Protean bundled into one file as a generated project's build.mjs bundles its dist/main.js, with that file's own
// esbuild options: the `bundle` tuning of anchor.mjs and the bundled case of imports.mjs run Protean as that
// project's image does.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { options } from '../../packages/create-protean/templates/build.mjs';

/** The anchor's Protean side bundled, beside lib/anchor.protean.mjs so that node_modules resolve from it as from the source. */
export const BUNDLED_ANCHOR = fileURLToPath(new URL('./anchor.protean.bundle.mjs', import.meta.url));

/** Bundles the ES module `entry` and what it imports into `outfile` (both paths); returns `outfile`. */
export async function bundle(entry, outfile) {
  await build({ ...options, entryPoints: [entry], outfile, sourcemap: false });
  return outfile;
}

/** Bundles lib/anchor.protean.mjs into {@link BUNDLED_ANCHOR}. */
export function bundleProteanAnchor() {
  return bundle(fileURLToPath(new URL('./anchor.protean.mjs', import.meta.url)), BUNDLED_ANCHOR);
}
