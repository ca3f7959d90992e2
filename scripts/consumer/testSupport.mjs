// Tests and their support code stay in the repository: the check that a packed
// tarball holds none, from its file listing alone (nothing is extracted).
import { run, tail } from './run.mjs';

/**
 * Whether `path` (relative to the package root, e.g. `dist/ShardCluster.testkit.js`)
 * is test code or test support: a `*.test.*` or `*.testkit.*` file (the
 * repository's one convention for private test support, ARCHITECTURE.md
 * "Tests"), or anything under a `test-helpers/` or `__tests__/` directory.
 *
 * Easy to get wrong: a generator's `templates/` are the files of the projects
 * it writes, their tests among them, so nothing under `templates/` counts.
 * Public test APIs (`@protean/core/testing`, `@protean/testing`) are ordinary
 * modules by name and never match.
 */
export function isTestSupport(path) {
  if (path.startsWith('templates/')) return false;
  const name = path.slice(path.lastIndexOf('/') + 1);
  return /\.test(kit)?\./.test(name) || /(^|\/)(test-helpers|__tests__)\//.test(path);
}

/**
 * The files of the npm tarball `tarball` as `tar -tzf` lists them, relative
 * to the package root (npm's leading `package/` removed); directories left out.
 * Throws when tar cannot read it.
 */
export function tarballFiles(tarball) {
  const res = run('tar', ['-tzf', tarball]);
  if (!res.ok) throw new Error(`tar -tzf ${tarball} failed: ${tail(res.output)}`);
  return res.stdout
    .split('\n')
    .filter((line) => line !== '' && !line.endsWith('/'))
    .map((line) => line.replace(/^[^/]+\//, ''));
}

/** The paths of the test code and test support in `tarball` (see {@link isTestSupport}); empty when it has none. */
export function testSupportInTarball(tarball) {
  return tarballFiles(tarball).filter(isTestSupport);
}
