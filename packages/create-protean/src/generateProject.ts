import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidOptionError } from './InvalidOptionError.js';
import { NODE_RUNTIME_FLAGS, projectManifest, proteanDependencies } from './projectManifest.js';
import { type Feature, renderTemplate } from './renderTemplate.js';
import { resolveProject, type GenerateOptions, type ResolvedProject } from './resolveProject.js';
import { TargetNotEmptyError } from './TargetNotEmptyError.js';
import { templateFiles } from './templateFiles.js';
import { copyTarballs, findTarballs, VENDOR_DIR } from './vendorTarballs.js';

/** The templates shipped next to `dist/` (and `src/`). */
export const TEMPLATES_DIR = fileURLToPath(new URL('../templates/', import.meta.url));

/** Files made executable in a generated project. */
const EXECUTABLE = new Set(['ci.sh']);

/** What {@link generateProject} wrote. */
export interface GeneratedProject {
  readonly project: ResolvedProject;
  /** The files written, relative to `project.directory`, sorted. */
  readonly files: readonly string[];
}

/**
 * Generates a Protean controller project into `options.directory` (created
 * if missing): the templates of the chosen layout with their placeholders
 * filled in, and a package.json. Validates everything before writing
 * anything; rejects a directory that holds files with a
 * {@link TargetNotEmptyError}, bad names with an `InvalidOptionError`.
 */
export function generateProject(options: GenerateOptions): GeneratedProject {
  const project = resolveProject(options);
  if (existsSync(project.directory)) {
    if (!statSync(project.directory).isDirectory())
      throw new InvalidOptionError('directory', options.directory, `${project.directory} exists and is not a directory`);
    const entries = readdirSync(project.directory);
    if (entries.length > 0) throw new TargetNotEmptyError(project.directory, entries);
  }
  const values: Record<string, string> = {
    name: project.name,
    namespace: project.namespace,
    layout: project.layout,
    group: project.group,
    kind: project.kind,
    plural: project.plural,
    singular: project.singular,
    // The exec form's arguments between "node" and "dist/main.js" (the Dockerfile's CMD).
    nodeFlags: NODE_RUNTIME_FLAGS.map((f) => JSON.stringify(f)).join(', '),
  };
  const vendored = project.from === undefined ? undefined : findTarballs(project.from, proteanDependencies(project));
  // Render everything first: a template problem must not leave half a project behind.
  const features = new Set<Feature>(project.webhooks ? ['webhooks'] : []);
  const rendered = templateFiles(TEMPLATES_DIR, project.layout, features).map(({ source, target }) => {
    const text = renderTemplate(readFileSync(join(TEMPLATES_DIR, source), 'utf8'), values, source, features);
    return { target, text: vendored !== undefined && target === 'Dockerfile' ? withVendor(text) : text };
  });
  rendered.push({ target: 'package.json', text: `${JSON.stringify(projectManifest(project, vendored), null, 2)}\n` });
  for (const { target, text } of rendered) {
    const path = join(project.directory, target);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    if (EXECUTABLE.has(target)) chmodSync(path, 0o755);
  }
  const copied = vendored === undefined || project.from === undefined ? [] : copyTarballs(project.from, project.directory, vendored);
  return { project, files: [...rendered.map((r) => r.target), ...copied].sort() };
}

/** The install steps of the Dockerfile given the vendored tarballs: package.json names them as `file:vendor/...`. */
function withVendor(dockerfile: string): string {
  const install = 'COPY package.json package-lock.json ./\n';
  if (!dockerfile.includes(install)) throw new Error(`templates/Dockerfile no longer has the line ${JSON.stringify(install)}`);
  return dockerfile.replaceAll(install, `${install}COPY ${VENDOR_DIR} ./${VENDOR_DIR}\n`);
}
