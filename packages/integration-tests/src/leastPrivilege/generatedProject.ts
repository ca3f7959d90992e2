// A project from `create-protean` for the least-privilege tests: generated
// into a temp dir, its node_modules a link to create-protean's (whose
// devDependencies are every package a generated project imports, the
// workspace's @protean/* among them, resolved to their dist/), and
// compiled, so its dist/main.js runs as the Deployment's container would.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateProject, type Layout, type ResolvedProject } from 'create-protean';

/** What {@link buildGeneratedProject} made. */
export interface BuiltProject {
  readonly dir: string;
  readonly project: ResolvedProject;
  readonly remove: () => void;
}

/** create-protean's node_modules, where its package.json is. */
const createProteanNodeModules = (): string =>
  join(dirname(createRequire(import.meta.url).resolve('create-protean/package.json')), 'node_modules');

/**
 * Generates a `layout` project named `name` and bundles it into
 * `dist/main.js` (`node build.mjs`, as its `npm run build` does after the
 * type check). Throws with the bundler's output when that fails.
 *
 * Easy to get wrong: the @protean/* packages resolve to their dist/, so
 * run `tsc -b` in the workspace first.
 */
export function buildGeneratedProject(layout: Layout, name: string): BuiltProject {
  const root = mkdtempSync(join(tmpdir(), `protean-lp-${layout}-`));
  const dir = join(root, name);
  const { project } = generateProject({ directory: dir, layout, name });
  const nodeModules = createProteanNodeModules();
  symlinkSync(nodeModules, join(dir, 'node_modules'), 'dir');
  const remove = (): void => rmSync(root, { recursive: true, force: true });
  const build = spawnSync(process.execPath, ['build.mjs'], { cwd: dir, encoding: 'utf8' });
  if (build.status !== 0) {
    remove();
    throw new Error(`node build.mjs failed in the generated ${layout} project (exit ${build.status}):\n${build.stdout}${build.stderr}`);
  }
  return { dir, project, remove };
}
