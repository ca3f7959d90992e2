// Not published (package.json `files` leaves src/testing and dist/testing out): a generated
// project wired to this workspace's @protean/* packages, for the tests of this repository.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateProject, type GeneratedProject } from '../generateProject.js';
import type { Layout } from '../Layout.js';

/** create-protean's own node_modules: its devDependencies are every package a generated project imports. */
export const WORKSPACE_NODE_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));

/** What {@link prepareGeneratedProject} made. */
export interface PreparedProject extends GeneratedProject {
  /** The project's directory (a new temporary one). */
  readonly dir: string;
  /** Removes the directory. */
  readonly remove: () => void;
}

/** Options of {@link prepareGeneratedProject}. */
export interface PrepareOptions {
  /** Also bundle it (`node build.mjs`, the second half of `npm run build`), so `dist/main.js` can be run. Default false. */
  readonly build?: boolean;
  /** Passed on to `generateProject`. */
  readonly name?: string;
  /** Generate it with `--webhooks`. Default false. */
  readonly webhooks?: boolean;
}

/** A failed step of preparing a generated project, with the command's output. */
export class PrepareProjectError extends Error {
  override readonly name = 'PrepareProjectError';
}

/**
 * Generates a project of `layout` into a new temporary directory and makes
 * the workspace's packages resolvable from it: its `node_modules` is a
 * symlink to create-protean's, whose devDependencies are the workspace's
 * `@protean/*` packages (built by `tsc -b`: their `exports` point at `dist/`)
 * and the project's tools (jest, @swc/jest, typescript, esbuild, ...). With
 * `build: true`, `dist/main.js` is bundled too.
 *
 * Easy to get wrong: the `@protean/*` packages resolve to their `dist/`, so
 * run `tsc -b` in the workspace first, or a changed source is not seen.
 */
export function prepareGeneratedProject(layout: Layout, options: PrepareOptions = {}): PreparedProject {
  const root = mkdtempSync(join(tmpdir(), `create-protean-${layout}-`));
  const dir = join(root, options.name ?? 'generated-controller');
  const generated = generateProject({
    directory: dir,
    layout,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.webhooks === true ? { webhooks: true } : {}),
  });
  symlinkSync(WORKSPACE_NODE_MODULES, join(dir, 'node_modules'), 'dir');
  const remove = (): void => rmSync(root, { recursive: true, force: true });
  if (options.build === true) {
    const res = runInProject(dir, ['build.mjs']);
    if (res.status !== 0) {
      remove();
      throw new PrepareProjectError(`node build.mjs failed in ${dir} (exit ${res.status}):\n${res.output}`);
    }
  }
  return { ...generated, dir, remove };
}

/** Runs `node <args>` in a project directory; resolves with the exit status and output. */
export function runInProject(
  dir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { status: number | null; output: string } {
  const res = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: res.status, output: `${res.stdout ?? ''}${res.stderr ?? ''}${res.error === undefined ? '' : res.error.message}` };
}
